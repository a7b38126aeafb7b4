#!/usr/bin/env bash
# Snapshots kept in a loopback S3 server (moto), in one run:
#  1. inspect, verify and verify --deep of a many-file RocksDB checkpoint (FILES_PARALLELISM
#     subtasks: about 6 files each, 1664 gives ~10,000 files) from the disk copy and through
#     s3://: seconds, and the requests the server answered (counted in its log);
#  2. download throughput of a large snapshot (BIG_KEYS keys of 1,000-byte values: 2,000,000 is
#     ~2 GB): `ckpt restore s3://... --output DIR` (which downloads every object: the restored
#     instances hold the SSTs) beside `aws s3 cp --recursive` of the same prefix to the same
#     disk, and `ckpt inspect s3://...`, which reads each file's meta data by ranges.
#  3. `ckpt dump` of one heap savepoint (DUMP_KEYS keys of 100-byte values in value and map
#     state, two subtasks: 100000 is ~37 MB) from the disk copy and through s3://: peak RSS (GNU
#     time's maximum resident set size), seconds of the whole dump, and time to first byte
#     (`ckpt dump ... | head -c 200`), each the best of three runs.
# What ckpt's runs cost the store is its own count (CKPT_S3_STATS, ckpt(1)).
# Usage: bench/s3_bench.sh [BUILD_DIR] [FILES_PARALLELISM] [BIG_KEYS] [WORK_DIR] [DUMP_KEYS]
# (0 skips a part; an empty WORK_DIR is a new temporary directory)
# Needs moto_server and the AWS CLI (`aws`: Debian's awscli package, or pip's); neither is a
# test dependency. WORK_DIR (default a temporary directory under TMPDIR) holds the snapshots
# and both downloads: about 3x the big snapshot's size.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
par=${2:-1664}
big_keys=${3:-2000000}
work=${4:-$(mktemp -d)}
dump_keys=${5:-100000}
mkdir -p "$work"
ckpt=$build/tools/ckpt
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
moto_server -H 127.0.0.1 -p "$port" > "$work/moto.log" 2>&1 &
moto=$!
trap 'kill $moto; rm -rf "$work"' EXIT
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break; sleep 0.2; done
export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_REGION=us-east-1 \
  AWS_EC2_METADATA_DISABLED=true
aws s3 mb s3://bench > /dev/null

t() { local s=$(date +%s.%N); "$@" > /dev/null; echo "$(echo "$(date +%s.%N) - $s" | bc)"; }
requests() { grep -cE '"(GET|HEAD|PUT|POST|DELETE) ' "$work/moto.log" || true; }

# 1. Many files.
if [ "$par" -gt 0 ]; then
max=$(( par > 128 ? par : 128 ))
"$ckpt" generate --backend rocksdb --keys $((par * 4)) --states value,map --parallelism "$par" \
  --max-parallelism "$max" --output "$work/snap" > /dev/null
files=$(find "$work/snap" -type f | wc -l)
bytes=$(du -sb "$work/snap" | cut -f1)
aws s3 cp --recursive --quiet "$work/snap" s3://bench/snap
echo "many files: $files files, $bytes bytes (parallelism $par)"
for cmd in "inspect" "verify" "verify --deep"; do
  disk=$(t "$ckpt" $cmd "$work/snap")
  before=$(requests)
  store=$(CKPT_S3_STATS="$work/stats" t "$ckpt" $cmd s3://bench/snap)
  echo "  $cmd: disk ${disk}s, s3 ${store}s, $(( $(requests) - before )) requests; $(tail -1 "$work/stats")"
done
rm -rf "$work/snap"
fi

# 2. Download throughput.
if [ "$big_keys" -gt 0 ]; then
"$ckpt" generate --backend rocksdb --keys "$big_keys" --value-size 1000 --states value --parallelism 4 \
  --output "$work/big" > /dev/null
big_files=$(find "$work/big" -type f | wc -l)
big_bytes=$(du -sb "$work/big" | cut -f1)
aws s3 cp --recursive --quiet "$work/big" s3://bench/big
echo "big: $big_files files, $big_bytes bytes; largest $(find "$work/big" -type f -printf '%s\n' | sort -n | tail -1) bytes"
disk=$(t "$ckpt" inspect "$work/big")
rm -rf "$work/big"
sync
aws_s=$(t aws s3 cp --recursive --quiet s3://bench/big "$work/aws-copy")
rm -rf "$work/aws-copy"
sync
before=$(requests)
ckpt_s=$(CKPT_S3_STATS="$work/stats" t "$ckpt" restore s3://bench/big --output "$work/restored")
ckpt_requests=$(( $(requests) - before ))
ckpt_stats=$(tail -1 "$work/stats")
rm -rf "$work/restored"
before=$(requests)
inspect_s=$(CKPT_S3_STATS="$work/stats" t "$ckpt" inspect s3://bench/big)
inspect_requests=$(( $(requests) - before ))
mbps() { echo "scale=1; $big_bytes / $1 / 1000000" | bc; }
echo "  aws s3 cp --recursive: ${aws_s}s ($(mbps "$aws_s") MB/s)"
echo "  ckpt restore s3://: ${ckpt_s}s ($(mbps "$ckpt_s") MB/s incl. restoring), $ckpt_requests requests; $ckpt_stats"
echo "  ckpt inspect s3://: ${inspect_s}s (${disk}s on the disk copy), $inspect_requests requests; $(tail -1 "$work/stats")"
fi

# 3. Dump: memory and time to first byte.
[ "$dump_keys" -gt 0 ] || exit 0
"$ckpt" generate --backend heap --keys "$dump_keys" --value-size 100 --states value,map --parallelism 2 \
  --output "$work/heap" > /dev/null
aws s3 cp --recursive --quiet "$work/heap" s3://bench/heap
echo "dump: heap savepoint of $(find "$work/heap" -type f | wc -l) files, $(du -sb "$work/heap" | cut -f1) bytes"
best() { sort -n | head -1; }
for where in "$work/heap" s3://bench/heap; do
  rss=$(for _ in 1 2 3; do /usr/bin/time -f %M "$ckpt" dump "$where" 2>&1 > /dev/null | tail -1; done | best)
  whole=$(for _ in 1 2 3; do t "$ckpt" dump "$where"; done | best)
  first=$(for _ in 1 2 3; do
    s=$(date +%s.%N); { "$ckpt" dump "$where" || true; } | head -c 200 > /dev/null; echo "$(date +%s.%N) - $s" | bc
  done | best)
  echo "  $([ "$where" = s3://bench/heap ] && echo s3 || echo disk): peak RSS $rss KiB, dump ${whole}s, first 200 bytes ${first}s"
done
