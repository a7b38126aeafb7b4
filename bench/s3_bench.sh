#!/usr/bin/env bash
# inspect and verify of a many-file RocksDB snapshot kept in a loopback S3 server (moto), beside
# the same commands on the disk copy: seconds, and the objects the staging fetched.
# Usage: bench/s3_bench.sh [BUILD_DIR] [PARALLELISM]   (needs moto_server and python3 with boto3)
set -euo pipefail
build=${1:-build}
par=${2:-256}
ckpt=$build/tools/ckpt
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
moto_server -H 127.0.0.1 -p "$port" > "$work/moto.log" 2>&1 &
moto=$!
trap 'kill $moto; rm -rf "$work"' EXIT
"$ckpt" generate --backend rocksdb --keys $((par * 40)) --states value,map --parallelism "$par" \
  --max-parallelism "$par" --output "$work/snap" > /dev/null
files=$(find "$work/snap" -type f | wc -l)
bytes=$(du -sb "$work/snap" | cut -f1)
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break; sleep 0.2; done
export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_REGION=us-east-1 \
  AWS_EC2_METADATA_DISABLED=true
python3 - "$work/snap" <<PY
import boto3, os, sys
c = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
c.create_bucket(Bucket="bench")
root = sys.argv[1]
for d, _, fs in os.walk(root):
    for f in fs:
        p = os.path.join(d, f)
        c.upload_file(p, "bench", "snap/" + os.path.relpath(p, root))
PY
echo "snapshot: $files files, $bytes bytes"
t() { local s=$(date +%s.%N); "$@" > /dev/null; echo "$(echo "$(date +%s.%N) - $s" | bc)"; }
for cmd in "inspect" "verify" "verify --deep"; do
  disk=$(t "$ckpt" $cmd "$work/snap")
  store=$(t "$ckpt" $cmd s3://bench/snap)
  echo "$cmd: disk ${disk}s, s3 ${store}s"
done
