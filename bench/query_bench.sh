#!/bin/sh
# query_bench.sh: `ckpt query` on a large generated snapshot (bench/README.md): a key lookup
# (`WHERE key = ...`, the reader's counters beside it), a full count against `ckpt dump -j N`,
# and the peak RSS of a GROUP BY over few groups.
#
#   bench/query_bench.sh BUILD_DIR [SNAPSHOT] [JOBS]
#
# Without SNAPSHOT, generates one like dump_key_bench.sh's but multi-GB: 8,000,000 keys of one
# operator, two subtasks, max parallelism 128, one value state of 300-byte values (RocksDB,
# 2.4 GiB) under a new directory of /tmp, removed at the end. JOBS (default 2) for both
# contenders of the full scan. Needs /usr/bin/time (GNU time) for the RSS.
set -eu
build=${1:?usage: query_bench.sh BUILD_DIR [SNAPSHOT] [JOBS]}
jobs=${3:-2}
ckpt=$build/tools/ckpt
if [ -n "${2:-}" ]; then
  sp=$2
else
  work=$(mktemp -d /tmp/ckpt-query-bench.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  sp=$work/sp
  echo "generating 8000000 keys under $work"
  nice "$ckpt" generate -q --output "$sp" --backend rocksdb --keys 8000000 --parallelism 2 --states value \
    --value-size 300 --jobs 2
fi

now() { date +%s.%N; }
ms() { echo "($2 - $1) * 1000 / 1" | bc; }

echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(du -sh "$sp" | cut -f1) in $sp"
find "$sp" -type f -exec cat {} + > /dev/null  # the same warm page cache for every contender

for round in 1 2 3; do
  for k in 0 1234567 4000000 7999999; do
    key=$(printf '"user-%010d"' "$k")
    t0=$(now)
    out=$("$ckpt" query "$sp" "SELECT count(*) AS n, min(key_group) AS kg FROM entries WHERE key = '$key'" \
            --format csv --progress 2> "${TMPDIR:-/tmp}/ckpt-query-bench.err" | tail -1)
    t1=$(now)
    echo "round $round: WHERE key = $key: n,key_group = $out in $(ms "$t0" "$t1") ms;" \
         "reader: $(tail -1 "${TMPDIR:-/tmp}/ckpt-query-bench.err")"
  done
  t0=$(now); n=$("$ckpt" query "$sp" "SELECT count(*) FROM entries" --format csv -j "$jobs" | tail -1); t1=$(now)
  q=$(ms "$t0" "$t1")
  t0=$(now); "$ckpt" dump "$sp" --format ndjson -j "$jobs" > /dev/null; t1=$(now)
  d=$(ms "$t0" "$t1")
  echo "round $round: SELECT count(*) -j $jobs: $n rows in $q ms; dump -j $jobs > /dev/null: $d ms;" \
       "ratio $(echo "scale=2; $q / $d" | bc)"
done
/usr/bin/time -f "GROUP BY subtask: %e s, peak RSS %M KiB" "$ckpt" query "$sp" -j "$jobs" --format csv \
  "SELECT subtask, count(*), sum(entry_bytes), max(length(value)) FROM entries GROUP BY subtask"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
