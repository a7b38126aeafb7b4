"""Shared fixtures of the Python module's tests (run by ctest: python/CMakeLists.txt).

CKPT_BINARY names the `ckpt` program the entries are compared with; CKPT_SHARED_DIR the
directory holding testdata/ (Flink's snapshots; the corpus tests skip without it);
CKPT_PYTHON_CORPUS=all runs the corpus tests over every snapshot instead of a sample.
"""

import json
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = SOURCE_DIR / "testdata" / "sample-savepoint"


def ckpt_binary():
    return os.environ.get("CKPT_BINARY", "ckpt")


def run_ckpt(*args, check=True):
    r = subprocess.run([ckpt_binary(), *map(str, args)], capture_output=True, text=True, errors="surrogateescape")
    if check and r.returncode not in (0, 1):
        raise AssertionError(f"ckpt {' '.join(map(str, args))}: exit {r.returncode}: {r.stderr}")
    return r


def shared_testdata():
    return pathlib.Path(os.environ.get("CKPT_SHARED_DIR", SOURCE_DIR.parent / "shared")) / "testdata"


def corpus_snapshots():
    """(id, snapshot directory, plan or None) of Flink's snapshots: all, or every 24th."""
    root = shared_testdata()
    found = []
    for family in ("flink", "flink-old"):
        d = root / family
        if d.is_dir():
            found += [(f"{family}/{p.name}", p, None) for p in sorted(d.iterdir()) if (p / "_metadata").is_file()]
    sql = root / "flink-sql"
    if sql.is_dir():
        for metadata in sorted(sql.glob("*/*/savepoint/_metadata")):
            test = metadata.parent.parent
            plans = sorted((test / "plan").glob("*.json"))
            found.append((f"flink-sql/{test.parent.name}/{test.name}", metadata.parent, plans[0] if plans else None))
    if os.environ.get("CKPT_PYTHON_CORPUS") != "all":
        found = found[::24]
    return found


def corpus_params():
    snapshots = corpus_snapshots()
    if not snapshots:
        return [pytest.param(None, None, marks=pytest.mark.skip(reason=f"no {shared_testdata()} (CKPT_SHARED_DIR)"))]
    return [pytest.param(path, plan, id=name) for name, path, plan in snapshots]


def canonical(line):
    """A JSON text in one spelling (compact, member order kept), to compare two texts."""
    return json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False)
