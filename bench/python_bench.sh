#!/bin/sh
# python_bench.sh: every entry of a generated snapshot iterated in Python (`import ckpt`)
# against `ckpt dump > /dev/null`, round by round (bench/README.md).
#
#   bench/python_bench.sh BUILD_DIR [KEYS] [WORK_DIR]
#
# Generates KEYS keys (default 8,000,000) of one operator, two subtasks, a value state of
# 100-byte values (RocksDB), under WORK_DIR (default a new directory under /tmp; removed at the
# end). Each round runs, with 1 and 2 worker threads: `ckpt dump --format ndjson -j N >
# /dev/null`, and Python counting the entries of Snapshot.entries(jobs=N) (every field of every
# entry converted to Python objects). Wall and CPU time and peak RSS from /usr/bin/time;
# ROUNDS rounds (default 3).
set -eu
build=${1:?usage: python_bench.sh BUILD_DIR [KEYS] [WORK_DIR]}
keys=${2:-8000000}
work=${3:-$(mktemp -d /tmp/ckpt-python-bench.XXXXXX)}
ckpt=$build/tools/ckpt
python=${PYTHON:-/usr/bin/python3}
trap 'rm -rf "$work"' EXIT

echo "generating $keys keys under $work"
"$ckpt" generate --output "$work/sp" --keys "$keys" --parallelism 2 --states value --value-size 100 --jobs 2 -q
echo "generated: $(du -sh "$work/sp" | cut -f1)"
find "$work/sp" -type f -exec cat {} + > /dev/null  # the same warm page cache for every contender

for round in $(seq "${ROUNDS:-3}"); do
  for jobs in 1 2; do
    /usr/bin/time -f "round $round: ckpt dump -j $jobs: %e s wall, %U+%S s CPU, %M KiB peak" \
      "$ckpt" dump "$work/sp" --format ndjson -j "$jobs" > /dev/null
    /usr/bin/time -f "round $round: python entries(jobs=$jobs): %e s wall, %U+%S s CPU, %M KiB peak" \
      env PYTHONPATH="$build/python" "$python" -c '
import sys, ckpt
n = 0
for e in ckpt.open(sys.argv[1]).entries(jobs=int(sys.argv[2])):
    n += 1
print("  entries:", n)' "$work/sp" "$jobs"
  done
done
