#!/bin/sh
# restore_bench.sh: ckpt restore of a generated multi-GB RocksDB native snapshot, side by side
# with `cp -r` of the same files, in the same run (bench/README.md).
#
#   [SNAPSHOT=DIR] [ROUNDS=N] bench/restore_bench.sh BUILD_DIR [BYTES] [SUBTASKS] [WORK_DIR]
#
# BYTES of values (default 2 GiB) in SUBTASKS instances (default 4), written under WORK_DIR
# (default a new directory under /tmp; removed at the end). Needs ../shared for the template.
# SNAPSHOT: time an existing native snapshot instead (BYTES is then ignored).
set -eu
build=${1:?usage: restore_bench.sh BUILD_DIR [BYTES] [SUBTASKS] [WORK_DIR]}
bytes=${2:-2147483648}
subtasks=${3:-4}
work=${4:-$(mktemp -d /tmp/ckpt-restore-bench.XXXXXX)}
here=$(cd "$(dirname "$0")" && pwd)
template=${CKPT_SHARED_DIR:-$here/../../shared}/testdata/flink/new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint
ckpt=$build/tools/ckpt
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

# Wall and CPU (user+sys) seconds of one command, as "wall cpu".
timed() {
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" > /dev/null
  awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$work/time"
}

if [ -n "${SNAPSHOT:-}" ]; then
  snapshot=$SNAPSHOT  # an existing native snapshot, read only
else
  echo "generating $bytes bytes in $subtasks subtasks under $work"
  "$build/tests/ckpt_make_native_snapshot" "$template" "$work/snapshot" "$bytes" "$subtasks"
  snapshot=$work/snapshot
fi
files=$(find "$snapshot" -type f | wc -l)
size=$(du -sb "$snapshot" | cut -f1)
echo "snapshot: $files files, $size bytes"
find "$snapshot" -type f -exec cat {} + > /dev/null  # the same warm page cache for every contender

# Each contender ends with `sync -f` (one syncfs of the output's file system), in turn each round.
for round in $(seq 1 "${ROUNDS:-3}"); do
  cp_t=$(timed sh -c 'cp -r "$1" "$2" && sync -f "$2"' sh "$snapshot" "$work/cp")
  rm -rf "$work/cp"
  copy_t=$(timed sh -c '"$1" restore "$2" --output "$3" -j "$4" && sync -f "$3"' sh "$ckpt" "$snapshot" "$work/copy" "$subtasks")
  rm -rf "$work/copy"
  link_t=$(timed sh -c '"$1" restore "$2" --output "$3" -j "$4" --link && sync -f "$3"' sh "$ckpt" "$snapshot" "$work/link" "$subtasks")
  rm -rf "$work/link"
  full_t=$(timed sh -c '"$1" restore "$2" --output "$3" -j "$4" --link --full-check && sync -f "$3"' sh "$ckpt" "$snapshot" "$work/full" "$subtasks")
  rm -rf "$work/full"
  echo "round $round (wall cpu, s): cp -r $cp_t | restore (copy) $copy_t | restore --link $link_t | restore --link --full-check $full_t"
done
