#!/bin/sh
# ckpt edit --max-parallelism, --delete-keys and --upsert against ckpt convert of the same snapshot
# (bench/README.md). Before timing, each input's upsert of 10 keys is checked: diff --keys of its
# output must show exactly those 10 entries changed and nothing else.
# usage: bench/edit_bench.sh BUILD_DIR [ROUNDS] [KEYS...]
#   KEYS: one snapshot size per value (1000-byte values, value+list+map state, 4 subtasks, 128
#   key groups: about 5.1 KB per key; 105000 ~ 512 MiB, 420000 ~ 2 GiB).
set -eu
build=$1
rounds=${2:-3}
shift 2 || shift $#
sizes=${*:-105000}
ckpt="$build/tools/ckpt"
work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-edit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
results="$work/results"
: > "$results"

# record SIZE RUN ROUND SECONDS RSS_KIB CPU_SECONDS (user + sys)
timed() {
  size=$1 run=$2 round=$3
  shift 3
  /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" > /dev/null
  echo "$size $run $round $(awk '{ printf "%s %s %.2f", $1, $2, $3 + $4 }' "$work/time")" >> "$results"
  rm -rf "$work/out" && sync
}

for keys in $sizes; do
  echo "== $keys keys: generating heap and rocksdb inputs (df: $(df -h "$work" | awk 'NR==2{print $4}') free)"
  for backend in heap rocksdb; do
    "$ckpt" generate --output "$work/$backend" --backend $backend --parallelism 4 --keys "$keys" \
      --value-size 1000 --states value,list,map --seed 1 -j 2 > /dev/null
  done
  # 100 keys spread over the key space, as ckpt dump prints them.
  awk -v n="$keys" 'BEGIN { for (i = 0; i < 100; ++i) printf "\"user-%010d\"\n", int(i * n / 100) }' > "$work/keys"
  # 10 keys' value-state entries as dump prints them, each value replaced by two bytes.
  for backend in heap rocksdb; do
    for i in 0 1 2 3 4 5 6 7 8 9; do
      "$ckpt" dump -q "$work/$backend" --state value-state --key "$(printf '"user-%010d"' $((i * keys / 10)))"
    done | sed 's/"bytes":"[0-9a-f]*"/"bytes":"abab"/' > "$work/upsert-$backend"
    "$ckpt" edit -q "$work/$backend" --upsert "$work/upsert-$backend" --output "$work/out" -j 2 > /dev/null
    "$ckpt" diff --keys --json "$work/$backend" "$work/out" -j 2 | python3 -c '
import json, sys
changed = {(s["state"], s["changed_count"], s["added_count"], s["removed_count"]) for s in json.load(sys.stdin)["keys"]}
want = {("value-state", 10, 0, 0), ("list-state", 0, 0, 0), ("map-state", 0, 0, 0)}
sys.exit(0 if changed == want else "upsert of 10 keys changed %s" % sorted(changed))'
    echo "$backend: --upsert of 10 keys: diff --keys shows exactly 10 value-state entries changed"
    rm -rf "$work/out" && sync
  done
  cat "$work"/heap/* "$work"/rocksdb/*/* > /dev/null 2>&1 || true
  sync
  for round in $(seq "$rounds"); do
    for backend in heap rocksdb; do
      timed "$keys" "$backend:convert" "$round" "$ckpt" convert "$work/$backend" --to $backend --output "$work/out" -j 2
      timed "$keys" "$backend:max-parallelism-4096" "$round" \
        "$ckpt" edit "$work/$backend" --max-parallelism 4096 --output "$work/out" -j 2
      timed "$keys" "$backend:delete-keys-100" "$round" \
        "$ckpt" edit "$work/$backend" --delete-keys "$work/keys" --output "$work/out" -j 2
      timed "$keys" "$backend:upsert-10" "$round" \
        "$ckpt" edit "$work/$backend" --upsert "$work/upsert-$backend" --output "$work/out" -j 2
    done
  done
  rm -rf "$work/heap" "$work/rocksdb"
done

echo
echo "keys run | best s | worst s | / convert (best) | CPU s (least) | / convert's CPU | peak RSS MiB (max)"
sort -k1,1n -k2,2 "$results" | awk '
  { k = $1 " " $2; if (!(k in best) || $4 < best[k]) best[k] = $4; if ($4 > worst[k]) worst[k] = $4
    if (!(k in cpu) || $6 < cpu[k]) cpu[k] = $6
    if ($5 > rss[k]) rss[k] = $5; order[k] = NR }
  END { for (k in best) { split(k, f, " "); split(f[2], r, ":"); c = f[1] " " r[1] ":convert"
          printf "%s | %.2f | %.2f | %.2fx | %.2f | %.2fx | %.0f\n", k, best[k], worst[k], best[k] / best[c],
                 cpu[k], cpu[k] / cpu[c], rss[k] / 1024 } }' | sort
echo
echo "load while measuring: $(uptime)"
