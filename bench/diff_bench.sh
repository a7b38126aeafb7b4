#!/bin/sh
# ckpt diff benchmarks (numbers in README.md):
# 1. files-only diff of two generated checkpoints of 10,000 SSTs each (target: under a second);
# 2. `diff --keys` throughput against `dump` of the same snapshots.
# Usage: bench/diff_bench.sh BUILD_DIR [SNAPSHOT_A SNAPSHOT_B]
set -eu
build=${1:?usage: diff_bench.sh BUILD_DIR [A B]}
ckpt=$build/tools/ckpt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bench/ckpt_diff_bench_gen" "$work" 10000 100
t() { /usr/bin/time -f "%e s, %M KiB max RSS" "$@"; }
echo "files-only diff, 10,000 SSTs each side:"
t "$ckpt" diff "$work/chk-1" "$work/chk-2" --json > "$work/diff.json" || test $? -eq 1
grep -c '"uri"' "$work/diff.json" | sed 's/^/  file entries in the JSON: /'
if [ $# -ge 3 ]; then
  a=$2 b=$3
  echo "dump A and B:"
  t sh -c "'$ckpt' dump '$a' > /dev/null && '$ckpt' dump '$b' > /dev/null"
  echo "diff --keys A B:"
  t "$ckpt" diff --keys "$a" "$b" > /dev/null || test $? -eq 1
fi
