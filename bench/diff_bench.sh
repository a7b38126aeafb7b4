#!/bin/sh
# diff_bench.sh: ckpt diff benchmarks (numbers in README.md).
# 1. The files-only diff of two checkpoints of 10,000 SSTs each (metadata only; target: under
#    a second).
# 2. `diff --keys` throughput on two consecutive checkpoints of a generated RocksDB chain, in
#    the same run as its floor, `ckpt dump` of both checkpoints to /dev/null, and as
#    `sst_dump --command=scan` over the SSTs each checkpoint references: wall time, entries/s,
#    MiB/s of SST read, peak RSS of each.
#
#   bench/diff_bench.sh BUILD_DIR [KEYS] [ROUNDS] [WORK_DIR]
#
# KEYS (default 2,000,000) keys of one value state (100-byte values) in 2 subtasks, chain of 2
# with churn 0.5; ROUNDS (default 3) repetitions; WORK_DIR (default a new directory under /tmp)
# is removed at the end. Needs jq.
set -eu
build=${1:?usage: diff_bench.sh BUILD_DIR [KEYS] [ROUNDS] [WORK_DIR]}
keys=${2:-2000000}
rounds=${3:-3}
work=${4:-$(mktemp -d /tmp/ckpt-diff-bench.XXXXXX)}
ckpt=$build/tools/ckpt
sst_dump=${SST_DUMP:-sst_dump}
trap 'rm -rf "$work"' EXIT

# Runs "$@" with stdout discarded; prints "SECONDS MAX_RSS_KIB CPU_SECONDS" (CPU: user + sys,
# what to compare on a loaded machine). Exit 1 is diff's "differs".
measure() {
  /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" > /dev/null || test $? -eq 1
  tail -n 1 "$work/time" | awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }'  # after "Command exited with non-zero status 1"
}
rate() { echo "scale=2; $1 / $2 / $3" | bc; }  # amount / seconds / unit

echo "== files-only diff, 10,000 SSTs each side (metadata only)"
"$build/bench/ckpt_diff_bench_gen" "$work/files" 10000 100
for round in $(seq "$rounds"); do
  set -- $(measure "$ckpt" diff --json "$work/files/chk-1" "$work/files/chk-2")
  echo "round $round: $1 s, $(($2 / 1024)) MiB max RSS"
done
"$ckpt" diff --json "$work/files/chk-1" "$work/files/chk-2" > "$work/files.json" || test $? -eq 1
jq -r '"  \(.added_files | length) added, \(.removed_files | length) removed, \(.shared_files | length) shared"' "$work/files.json"

echo "== diff --keys, generated RocksDB chain: $keys keys, value state, 2 subtasks, churn 0.5"
"$ckpt" generate --output "$work/job" --chain 2 --churn 0.5 --keys "$keys" --parallelism 2 --states value \
  --value-size 100 -j 2
a=$work/job/chk-1 b=$work/job/chk-2
"$ckpt" diff --json "$a" "$b" > "$work/job.json" || test $? -eq 1
jq -r '.shared_files[].uri, .removed_files[].uri | select(test("/shared/"))' "$work/job.json" > "$work/ssts-a"
jq -r '.shared_files[].uri, .added_files[].uri | select(test("/shared/"))' "$work/job.json" > "$work/ssts-b"
"$ckpt" diff --keys --json "$a" "$b" > "$work/keys.json" || test $? -eq 1
entries=$(jq '[.keys[] | 2 * .same_count + .added_count + .removed_count + 2 * .changed_count] | add' "$work/keys.json")
sst_bytes=$(cat "$work/ssts-a" "$work/ssts-b" | xargs cat | wc -c)
jq -r '.keys[] | "  \(.state): \(.same_count) same, \(.added_count) added, \(.removed_count) removed, \(.changed_count) changed"' "$work/keys.json"
echo "  read: $entries entries of both sides, $(wc -l < "$work/ssts-a") + $(wc -l < "$work/ssts-b") SSTs, $sst_bytes SST bytes"
cat "$work/ssts-a" "$work/ssts-b" | xargs cat > /dev/null  # the same warm page cache for all
# sst_dump reads only files named *.sst: link each under such a name (A's, then B's).
mkdir "$work/sst"
i=0
cat "$work/ssts-a" "$work/ssts-b" | while read -r f; do i=$((i + 1)); ln -s "$f" "$work/sst/$i.sst"; done

report() {  # NAME SECONDS RSS_KIB CPU_SECONDS
  echo "  $1: $2 s ($4 s CPU), $(rate "$entries" "$2" 1000000) M entries/s, $(rate "$sst_bytes" "$2" 1048576) MiB/s, $(($3 / 1024)) MiB max RSS"
}
for round in $(seq "$rounds"); do
  echo "round $round:"
  set -- $(measure sh -c "'$ckpt' dump --format ndjson '$a' && '$ckpt' dump --format ndjson '$b'")
  dump_s=$1 dump_cpu=$3
  report "ckpt dump A, then B (ndjson)" "$1" "$2" "$3"
  set -- $(measure "$ckpt" diff --keys "$a" "$b")
  keys_s=$1 keys_cpu=$3
  report "ckpt diff --keys" "$1" "$2" "$3"
  set -- $(measure "$ckpt" diff --keys --format ndjson "$a" "$b")
  report "ckpt diff --keys --format ndjson" "$1" "$2" "$3"
  set -- $(measure sh -c "for f in '$work/sst'/*.sst; do '$sst_dump' --file=\"\$f\" --command=scan || exit 2; done")
  report "sst_dump --command=scan, each SST of A and B" "$1" "$2" "$3"
  echo "  diff --keys / dump A+B: $(echo "scale=2; $keys_s / $dump_s" | bc) wall, $(echo "scale=2; $keys_cpu / $dump_cpu" | bc) CPU"
done
