#!/bin/sh
# report_bench.sh: ckpt report on a generated chain of CHAIN incremental RocksDB checkpoints
# (numbers in README.md): wall time and peak RSS of the counted report (every entry of the
# newest checkpoint read), of --fast (metadata and handle sizes only), and of ckpt advise.
#
#   bench/report_bench.sh BUILD_DIR [KEYS] [CHAIN] [WORK_DIR]
#
# KEYS (default 2,000,000) keys per operator, 2 operators x 4 subtasks, states value,map with
# 200-byte values, churn 0.2; CHAIN (default 20). WORK_DIR (default a new directory under /tmp)
# is removed at the end. Needs jq.
set -eu
build=${1:?usage: report_bench.sh BUILD_DIR [KEYS] [CHAIN] [WORK_DIR]}
keys=${2:-2000000}
chain=${3:-20}
work=${4:-$(mktemp -d /tmp/ckpt-report-bench.XXXXXX)}
ckpt=$build/tools/ckpt
trap 'rm -rf "$work"' EXIT

measure() {  # prints "SECONDS MAX_RSS_KIB"
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > /dev/null
  tail -n 1 "$work/time"
}

echo "== generate: $chain checkpoints, 2 operators x 4 subtasks, $keys keys each, value,map, 200 B values"
set -- $(measure "$ckpt" generate -q --output "$work/job" --chain "$chain" --churn 0.2 --keys "$keys" --operators 2 \
  --parallelism 4 --states value,map --value-size 200 -j 2)
echo "  $1 s, $(du -sh "$work/job" | cut -f1) on disk"
"$ckpt" report -q --json --fast "$work/job" > "$work/fast.json"
jq -r '"  newest: \(.state_size) bytes full, \(.checkpointed_size) incremental, \(.file_count) files; \(.history | length) checkpoints"' "$work/fast.json"

for args in "--fast" "" "-j 2"; do
  set -- $(measure "$ckpt" report -q $args "$work/job" --output "$work/report.html" --force)
  echo "report $args: $1 s, $(($2 / 1024)) MiB max RSS, page $(wc -c < "$work/report.html") bytes"
done
set -- $(measure "$ckpt" advise -q --fast "$work/job")
echo "advise --fast: $1 s, $(($2 / 1024)) MiB max RSS"
"$ckpt" report -q --json "$work/job" > "$work/full.json"
jq -r '"  counted \(.entry_count) entries"' "$work/full.json"
