#!/bin/sh
# dump_key_bench.sh: `ckpt dump --key` (a point lookup) against a full `ckpt dump` of the same
# generated snapshot, in the same run (bench/README.md).
#
#   bench/dump_key_bench.sh BUILD_DIR [KEYS] [BACKEND] [WORK_DIR]
#
# Generates KEYS keys (default 8,000,000) of one operator, two subtasks, max parallelism 128,
# a value state of 100-byte values, in BACKEND (rocksdb or heap; default rocksdb), under
# WORK_DIR (default a new directory under /tmp; removed at the end). Each round looks up five
# keys one by one, then dumps everything once.
set -eu
build=${1:?usage: dump_key_bench.sh BUILD_DIR [KEYS] [BACKEND] [WORK_DIR]}
keys=${2:-8000000}
backend=${3:-rocksdb}
work=${4:-$(mktemp -d /tmp/ckpt-dump-key-bench.XXXXXX)}
ckpt=$build/tools/ckpt
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
ms() { echo "($2 - $1) * 1000 / 1" | bc; }
# Runs a command (its output on stdout) and records its wall and CPU (user + sys) time in ms,
# from the kernel's microsecond counts (GNU time prints hundredths of a second).
timed() {
  python3 -c '
import resource, subprocess, sys, time
cpu = lambda r: r.ru_utime + r.ru_stime
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)  # not 0 where python3 is a wrapper that ran others
t0 = time.monotonic(); subprocess.run(sys.argv[2:]); wall = time.monotonic() - t0
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.1f %.1f\n" % (wall * 1000, (cpu(r) - cpu(r0)) * 1000))' "$work/cpu" "$@"
}
wall_ms() { cut -d' ' -f1 "$work/cpu"; }
cpu_ms() { cut -d' ' -f2 "$work/cpu"; }

echo "generating $keys keys ($backend) under $work"
t0=$(now)
"$ckpt" generate --output "$work/sp" --backend "$backend" --keys "$keys" --parallelism 2 --states value --value-size 100 --jobs 2
t1=$(now)
echo "generated in $(ms "$t0" "$t1") ms: $(du -sh "$work/sp" | cut -f1)"
find "$work/sp" -type f -exec cat {} + > /dev/null  # the same warm page cache for every contender

for round in 1 2 3; do
  for k in 0 1234567 4000000 6999999 $((keys - 1)); do
    key=$(printf '"user-%010d"' "$k")
    n=$(timed "$ckpt" dump "$work/sp" --key "$key" --format ndjson | wc -l)
    echo "round $round: dump --key $key: $n entries in $(wall_ms) ms, CPU $(cpu_ms) ms"
  done
  n=$(timed "$ckpt" dump "$work/sp" --format ndjson -j 2 | wc -l)
  echo "round $round: full dump -j 2: $n entries in $(wall_ms) ms, CPU $(cpu_ms) ms"
done
