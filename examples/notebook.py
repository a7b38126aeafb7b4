#!/usr/bin/env python3
"""A notebook's questions about a snapshot's state, as a plain script over the `ckpt` module.

    python3 examples/notebook.py SNAPSHOT [--plan PLAN.json] [--out DIR]

Answers, in one pass over the entries (memory flat: only counters are kept):
1. the biggest states (bytes the job's serializers wrote, entries);
2. the top keys by size;
3. one key's state across operators (the biggest key, or --key JSON);
4. how skewed the key groups are: a histogram of bytes per key group, saved to DIR/skew.png
   (matplotlib, rendered without a display).

Run by ctest over testdata/sample-savepoint (examples/CMakeLists.txt).
"""

import argparse
import collections
import heapq
import json
import pathlib
import sys

import ckpt


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot")
    parser.add_argument("--plan", help="the job's compiled SQL plan, naming operators and key columns")
    parser.add_argument("--key", help="the key to follow across operators, as JSON (default: the biggest)")
    parser.add_argument("--out", default=".", help="where skew.png goes")
    parser.add_argument("--top", type=int, default=5)
    args = parser.parse_args()

    snapshot = ckpt.open(args.snapshot, plan=args.plan)
    names = {op["id"]: op.get("uid") or op.get("name") or op["id"][:8] for op in snapshot.metadata["operators"]}

    state_bytes = collections.Counter()
    state_entries = collections.Counter()
    key_bytes = collections.Counter()
    group_bytes = collections.Counter()
    for e in snapshot.entries(jobs=2):
        where = (names.get(e.operator, e.operator[:8]), e.state)
        state_bytes[where] += e.entry_bytes
        state_entries[where] += 1
        if e.kind == "keyed":
            key_bytes[ckpt.json_text(e.key)] += e.entry_bytes
            group_bytes[e.key_group] += e.entry_bytes

    print(f"1. biggest states of {args.snapshot}")
    for (operator, state), size in state_bytes.most_common(args.top):
        print(f"   {size:>12,} B {state_entries[(operator, state)]:>10,} entries  {operator} / {state}")

    print("2. top keys by size")
    for key, size in heapq.nlargest(args.top, key_bytes.items(), key=lambda kv: kv[1]):
        print(f"   {size:>12,} B  {key}")

    key = args.key or (key_bytes.most_common(1)[0][0] if key_bytes else None)
    print(f"3. key {key} across operators")
    if key is not None:
        # A point lookup: each operator reads only the key group Flink assigns the key.
        for e in snapshot.entries(keys=[json.loads(key)]):
            print(f"   {names.get(e.operator, e.operator[:8])} / {e.state}: {ckpt.json_text(e.value)}")

    out = pathlib.Path(args.out) / "skew.png"
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(8, 3))
    groups = sorted(group_bytes)
    axes.bar(groups, [group_bytes[g] for g in groups], width=1.0)
    axes.set_xlabel("key group")
    axes.set_ylabel("bytes")
    mean = sum(group_bytes.values()) / len(groups) if groups else 0
    hottest = max(group_bytes.values(), default=0)
    axes.set_title(f"keyed state per key group (hottest {hottest / mean:.1f}x the mean)" if mean else "no keyed state")
    figure.tight_layout()
    figure.savefig(out)
    print(f"4. skew histogram of {len(groups)} key groups: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
