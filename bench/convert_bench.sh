#!/bin/sh
# ckpt convert throughput and peak memory against a plain SstFileWriter loop (bench/README.md).
# usage: bench/convert_bench.sh BUILD_DIR [KEYS] [VALUE_SIZE] [PARALLELISM]
set -eu
build=$1
keys=${2:-300000}
value_size=${3:-1000}
par=${4:-4}
ckpt="$build/tools/ckpt"
loop="$build/bench/ckpt_convert_bench_sst_loop"
work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-convert-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
timed() { /usr/bin/time -f "%e s, max RSS %M KiB" "$@"; }

"$ckpt" generate --output "$work/heap" --backend heap --parallelism "$par" --keys "$keys" \
  --value-size "$value_size" --states value,list,map --seed 1 -j 2
du -sb "$work/heap" | awk '{printf "input: heap snapshot, %d bytes\n", $1}'
cat "$work/heap"/* > /dev/null
for j in 1 2; do
  echo "convert --to rocksdb -j $j:"
  timed "$ckpt" convert "$work/heap" --to rocksdb --output "$work/rocks-$j" -j "$j"
  sync
done
echo "convert rocksdb --to heap -j 2:"
timed "$ckpt" convert "$work/rocks-2" --to heap --output "$work/heap-back" -j 2
echo "convert --to canonical -j 2:"
timed "$ckpt" convert "$work/heap" --to canonical --output "$work/canonical" -j 2
echo "plain SstFileWriter loop, same keys and values (one core):"
timed "$loop" "$work/loop" 1 "$par" "$keys" "$value_size" value,list,map 1
sync
