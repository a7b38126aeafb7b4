#!/bin/sh
# restore_bench.sh: ckpt restore of a generated multi-GB RocksDB native snapshot, side by side
# with `cp -r` of the same files, in the same run (bench/README.md).
#
#   bench/restore_bench.sh BUILD_DIR [BYTES] [SUBTASKS] [WORK_DIR]
#
# BYTES of values (default 2 GiB) in SUBTASKS instances (default 4), written under WORK_DIR
# (default a new directory under /tmp; removed at the end). Needs ../shared for the template.
set -eu
build=${1:?usage: restore_bench.sh BUILD_DIR [BYTES] [SUBTASKS] [WORK_DIR]}
bytes=${2:-2147483648}
subtasks=${3:-4}
work=${4:-$(mktemp -d /tmp/ckpt-restore-bench.XXXXXX)}
here=$(cd "$(dirname "$0")" && pwd)
template=${CKPT_SHARED_DIR:-$here/../../shared}/testdata/flink/new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint
ckpt=$build/tools/ckpt
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }

echo "generating $bytes bytes in $subtasks subtasks under $work"
"$build/tests/ckpt_make_native_snapshot" "$template" "$work/snapshot" "$bytes" "$subtasks"
files=$(ls "$work/snapshot" | wc -l)
size=$(du -sb "$work/snapshot" | cut -f1)
echo "snapshot: $files files, $size bytes"
cat "$work/snapshot"/* > /dev/null  # the same warm page cache for every contender

for round in 1 2 3; do
  t0=$(now); cp -r "$work/snapshot" "$work/cp"; sync; t1=$(now)
  rm -rf "$work/cp"
  t2=$(now); "$ckpt" restore "$work/snapshot" --output "$work/copy" -j "$subtasks" > /dev/null; sync; t3=$(now)
  rm -rf "$work/copy"
  t4=$(now); "$ckpt" restore "$work/snapshot" --output "$work/link" -j "$subtasks" --link > /dev/null; sync; t5=$(now)
  rm -rf "$work/link"
  echo "round $round: cp -r $(secs "$t0" "$t1") s, restore (copy) $(secs "$t2" "$t3") s, restore --link $(secs "$t4" "$t5") s"
done
