#!/bin/sh
# dump_bench.sh: ckpt dump throughput on a generated RocksDB native snapshot in Flink's layout,
# side by side with `sst_dump --command=scan` over the same SST files, in the same run
# (bench/README.md).
#
#   bench/dump_bench.sh BUILD_DIR [BYTES] [SUBTASKS] [WORK_DIR]
#
# About BYTES of keys and values (default 512 MiB) as Flink's RocksDB layout writes a
# Tuple1<Long>-keyed Long value state (key-group prefix, 8-byte key, VoidNamespace; 8-byte
# values, which ckpt decodes), in SUBTASKS instances (default 2), under WORK_DIR (default a new
# directory under /tmp; removed at the end). Needs ../shared for the template.
set -eu
build=${1:?usage: dump_bench.sh BUILD_DIR [BYTES] [SUBTASKS] [WORK_DIR]}
bytes=${2:-536870912}
subtasks=${3:-2}
work=${4:-$(mktemp -d /tmp/ckpt-dump-bench.XXXXXX)}
here=$(cd "$(dirname "$0")" && pwd)
template=${CKPT_SHARED_DIR:-$here/../../shared}/testdata/flink/new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint
ckpt=$build/tools/ckpt
sst_dump=${SST_DUMP:-sst_dump}
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }
rate() { echo "scale=1; $1 / ($3 - $2) / $4" | bc; }  # amount / seconds / unit

# DUMP_SNAPSHOT=DIR takes an existing snapshot instead (e.g. the 8 M-key one `ckpt generate`
# makes in dump_key_bench.sh); SST_DUMP_FLAGS adds flags to sst_dump (issue 33 compares
# against `--output_hex`, which prints values as hex, as dump prints byte arrays).
snapshot=${DUMP_SNAPSHOT:-}
if [ -z "$snapshot" ]; then
  echo "generating $bytes bytes in $subtasks subtasks under $work"
  "$build/tests/ckpt_make_native_snapshot" "$template" "$work/snapshot" "$bytes" "$subtasks" 8
  snapshot=$work/snapshot
fi
mkdir -p "$work"
find "$snapshot" -name '*.sst' | sort > "$work/ssts"
ssts=$(wc -l < "$work/ssts")
sst_bytes=$(xargs cat < "$work/ssts" | wc -c)
find "$snapshot" -type f -exec cat {} + > /dev/null  # the same warm page cache for every contender
entries=$("$ckpt" dump --format ndjson -j "$subtasks" "$snapshot" | wc -l)
echo "snapshot: $ssts SST files, $sst_bytes SST bytes, $entries entries"
"$ckpt" dump --format ndjson --limit 1 "$snapshot"

# CPU time (user + sys, seconds) of a command, its output discarded.
cpu() { /usr/bin/time -f '%U %S' -o "$work/cpu" "$@" > /dev/null && awk '{ print $1 + $2 }' "$work/cpu"; }
for round in 1 2 3; do
  t0=$(now); c0=$(cpu "$ckpt" dump --format ndjson -j 1 "$snapshot"); t1=$(now)
  t2=$(now); c1=$(cpu sh -c 'while read -r f; do "$0" --file="$f" --command=scan $1; done < "$2"' "$sst_dump" "${SST_DUMP_FLAGS:-}" "$work/ssts"); t3=$(now)
  t4=$(now); c2=$(cpu "$ckpt" dump --format ndjson -j "$subtasks" "$snapshot"); t5=$(now)
  t6=$(now); c3=$(cpu sh -c 'xargs -P "$3" -I{} "$0" --file={} --command=scan $1 < "$2"' "$sst_dump" "${SST_DUMP_FLAGS:-}" "$work/ssts" "$subtasks"); t7=$(now)
  echo "round $round, one thread: ckpt dump $(secs "$t0" "$t1") s (CPU $c0 s; $(rate "$entries" "$t0" "$t1" 1000000) M entries/s, $(rate "$sst_bytes" "$t0" "$t1" 1048576) MiB/s), sst_dump scan $(secs "$t2" "$t3") s (CPU $c1 s; $(rate "$entries" "$t2" "$t3" 1000000) M entries/s, $(rate "$sst_bytes" "$t2" "$t3" 1048576) MiB/s)"
  echo "round $round, $subtasks at once: ckpt dump -j $subtasks $(secs "$t4" "$t5") s (CPU $c2 s), sst_dump scan (xargs -P $subtasks) $(secs "$t6" "$t7") s (CPU $c3 s)"
done
