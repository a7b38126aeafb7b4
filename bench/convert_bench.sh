#!/bin/sh
# ckpt convert throughput and peak memory against a plain SstFileWriter loop (bench/README.md).
# usage: bench/convert_bench.sh BUILD_DIR [ROUNDS] [KEYS[:MAX_PARALLELISM]...]
# CPU time (user + sys) is reported beside wall: convert's whole process against the loop's
# Put and Finish on its threads' CPU clocks (the figure that compares on a loaded machine).
#   KEYS: one snapshot size per value (1000-byte values, value+list+map state, 4 subtasks:
#   about 5.1 KB of keys and values per key; 105000 ~ 512 MiB, 420000 ~ 2 GiB); the key groups
#   (MAX_PARALLELISM, default 128) set the unit convert holds in memory.
set -eu
build=$1
rounds=${2:-3}
shift 2 || shift $#
sizes=${*:-105000 420000}
value_size=1000
par=4
states=value,list,map
ckpt="$build/tools/ckpt"
loop="$build/bench/ckpt_convert_bench_sst_loop"
work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-convert-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
results="$work/results"
: > "$results"

# record SIZE RUN J ROUND SECONDS RSS_KIB CPU_SECONDS (user + sys: what compares on a loaded machine)
timed() {
  size=$1 run=$2 j=$3 round=$4
  shift 4
  /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" > /dev/null
  echo "$size $run $j $round $(awk '{ print $1, $2, $3 + $4 }' "$work/time")" >> "$results"
}

for size in $sizes; do
  keys=${size%%:*}
  maxpar=128
  case $size in *:*) maxpar=${size##*:} ;; esac
  echo "== $keys keys, $maxpar key groups: generating heap and rocksdb inputs (df: $(df -h "$work" | awk 'NR==2{print $4}') free)"
  "$ckpt" generate --output "$work/heap" --backend heap --parallelism $par --keys "$keys" \
    --max-parallelism "$maxpar" --value-size $value_size --states $states --seed 1 -j 2
  "$ckpt" generate --output "$work/rocks" --backend rocksdb --parallelism $par --keys "$keys" \
    --max-parallelism "$maxpar" --value-size $value_size --states $states --seed 1 -j 2
  cat "$work"/heap/* "$work"/rocks/*/* > /dev/null 2>&1 || true
  sync
  for round in $(seq "$rounds"); do
    for j in 1 2; do
      for run in heap:rocksdb rocks:heap heap:canonical rocks:canonical; do
        in=${run%%:*} to=${run##*:}
        timed "$size" "$in->$to" $j "$round" "$ckpt" convert "$work/$in" --to "$to" --output "$work/out" -j $j
        # The file system here discards freed blocks (ext4 -o discard) at its next commit: a
        # sync after each delete keeps that work out of the next timed run.
        rm -rf "$work/out" && sync
      done
      "$loop" "$work/loop" 1 $par "$keys" $value_size $states 1 $j "$maxpar" > "$work/loop.txt"
      awk -v k="$size" -v j=$j -v r="$round" \
        '{print k, "sst-loop", j, r, $9, $15, $17; print k, $5, $7 > "'"$work"'/volume-" k}' "$work/loop.txt" >> "$results"
      rm -rf "$work/loop" && sync
    done
  done
  rm -rf "$work/heap" "$work/rocks"
done

echo
echo "keys:key-groups run -j | best s | spread s | MB/s | entries/s | % of loop (same -j) | peak RSS MiB (max) | best CPU s | % of loop's CPU"
sort -k1,1n -k2,2 -k3,3n "$results" | awk -v dir="$work" '
  function flush() {
    if (key == "") return
    getline vol < (dir "/volume-" size); close(dir "/volume-" size)
    split(vol, v, " ")
    best_of[size, j, run] = best
    cpu_of[size, j, run] = cpu
    line[++n] = sprintf("%s %s -j %s|%.2f|%.2f|%.0f|%.0f|%s|%.0f|%.2f", size, run, j, best, worst - best,
                        v[3] / best / 1e6, v[2] / best, size SUBSEP j, rss / 1024, cpu)
  }
  { k = $1 " " $2 " " $3
    if (k != key) { flush(); key = k; size = $1; run = $2; j = $3; best = $5; worst = $5; rss = 0; cpu = $7 }
    if ($5 < best) best = $5; if ($5 > worst) worst = $5; if ($6 > rss) rss = $6; if ($7 < cpu) cpu = $7 }
  END { flush()
    for (i = 1; i <= n; ++i) { split(line[i], f, "|"); split(f[1], h, " ")
      lim = best_of[h[1], h[4], "sst-loop"]
      printf "%s | %s | %s | %s | %s | %.0f%% | %s | %s | %.0f%%\n", f[1], f[2], f[3], f[4], f[5], 100 * lim / f[2], f[7],
             f[8], 100 * cpu_of[h[1], h[4], "sst-loop"] / f[8] } }'
echo
echo "load while measuring: $(uptime)"
