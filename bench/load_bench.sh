#!/bin/sh
# ckpt load of N entries from dump's NDJSON against ckpt generate writing the same entries
# (bench/README.md): the rate of each, round by round in the same minutes.
# usage: bench/load_bench.sh BUILD_DIR [ROUNDS] [KEYS] [BACKEND] [JOBS]
#   KEYS value-state entries (String keys, 100-byte values, 2 subtasks, 128 key groups);
#   BACKEND rocksdb (default) or heap: the layout both write; JOBS (default 1) the --jobs of both.
set -eu
build=$1
rounds=${2:-3}
keys=${3:-10000000}
backend=${4:-rocksdb}
jobs=${5:-1}
ckpt="$build/tools/ckpt"
work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-load-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
results="$work/results"
: > "$results"

set -- generate -q --backend "$backend" --parallelism 2 --keys "$keys" --value-size 100 --states value --seed 1 --jobs "$jobs"

# record RUN ROUND SECONDS CPU_SECONDS RSS_KIB
timed() {
  run=$1 round=$2
  shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > /dev/null
  read -r wall user sys rss < "$work/time"
  echo "$run $round $wall $(echo "$user + $sys" | bc) $rss" >> "$results"
  rm -rf "$work/out" && sync
}

echo "== $keys keys ($backend): generating the template and dumping its entries"
"$ckpt" "$@" --output "$work/template" > /dev/null
"$ckpt" dump -q "$work/template" > "$work/entries.ndjson"
echo "entries: $(wc -l < "$work/entries.ndjson") lines, $(du -h "$work/entries.ndjson" | cut -f1)"
for round in $(seq "$rounds"); do
  timed generate "$round" "$ckpt" "$@" --output "$work/out"
  timed load "$round" "$ckpt" load -q "$work/entries.ndjson" --like "$work/template" --output "$work/out" --jobs "$jobs"
done

echo
echo "run | best wall s | worst wall s | best CPU s | entries/s (best wall) | / generate's rate | peak RSS MiB"
awk -v n="$keys" '
  { if (!($1 in best) || $3 < best[$1]) best[$1] = $3; if ($3 > worst[$1]) worst[$1] = $3
    if (!($1 in cpu) || $4 < cpu[$1]) cpu[$1] = $4; if ($5 > rss[$1]) rss[$1] = $5 }
  END { for (k in best) printf "%s | %.1f | %.1f | %.1f | %.0f | %.2fx | %.0f\n", k, best[k], worst[k], cpu[k],
          n / best[k], best["generate"] / best[k], rss[k] / 1024 }' "$results" | sort
echo
echo "load while measuring: $(uptime)"
