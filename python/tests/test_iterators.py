"""Iterators dropped halfway stop their worker threads; an interpreter exiting with one alive
does not hang. Over a snapshot `ckpt generate` writes, large enough that the workers are
blocked on full channels when the iterator is dropped."""

import os
import subprocess
import sys
import textwrap

import pytest

import ckpt
from conftest import SAMPLE, run_ckpt


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("generated") / "snapshot"
    run_ckpt("generate", "--output", out, "--keys", "40000", "--value-size", "4", "--parallelism", "4", "-q")
    return out


def threads():
    return len(os.listdir("/proc/self/task"))


def test_dropped_and_closed_iterators_join_their_workers(generated):
    snapshot = ckpt.open(generated)
    before = threads()
    it = snapshot.entries(jobs=3)
    first = [next(it) for _ in range(10)]
    assert len(first) == 10 and threads() > before
    del it
    assert threads() == before
    with snapshot.entries(jobs=3) as it:
        next(it)
        assert threads() > before
    assert threads() == before
    assert list(it) == []  # closed: the iteration is over


def test_full_iteration_counts_every_entry(generated):
    count = sum(1 for _ in ckpt.open(generated).entries(jobs=2))
    assert count == 40000


@pytest.mark.parametrize("how", ["global", "cycle", "thread"])
def test_interpreter_exits_with_an_iterator_alive(generated, how):
    script = textwrap.dedent(f"""
        import threading, ckpt
        snapshot = ckpt.open({str(generated)!r})
        it = snapshot.entries(jobs=3)
        next(it)
        how = {how!r}
        if how == "cycle":
            holder = [it]
            holder.append(holder)
            del it
        elif how == "thread":
            def walk(i=it):
                for _ in range(100):
                    next(i)
            t = threading.Thread(target=walk)
            t.start()
            t.join()
        print("done", flush=True)
        """)
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "done\n"


def test_entries_of_another_thread_run_without_the_gil(generated):
    # While one thread iterates (its waits release the GIL), another makes progress.
    import threading

    snapshot = ckpt.open(generated)
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.001)

    t = threading.Thread(target=tick)
    t.start()
    n = sum(1 for _ in snapshot.entries(jobs=2))
    stop.set()
    t.join()
    assert n == 40000 and ticks


def test_to_pandas_named_and_raw_columns():
    pandas = pytest.importorskip("pandas")
    snapshot = ckpt.open(SAMPLE)
    entries = [e for e in snapshot.entries() if e.state == "count"]
    frame = snapshot.to_pandas(state="count")
    assert isinstance(frame, pandas.DataFrame)
    assert len(frame) == len(entries)
    assert list(frame["key"]) == [e.key for e in entries]
    assert list(frame["value"]) == [e.value for e in entries]
    assert str(frame["value"].dtype).lower() == "int64"
    assert {"operator", "uid", "subtask", "state", "kind", "key_group", "entry_bytes"} <= set(frame.columns)
    raw = snapshot.to_pandas(columns="raw")
    assert len(raw) == sum(1 for _ in snapshot.entries())
    assert list(raw.columns)[:3] == ["operator", "uid", "subtask"]


def test_help_and_version():
    assert ckpt.__version__.count(".") == 2
    assert "plan" in ckpt.open.__doc__ and "Entry" in ckpt.Snapshot.entries.__doc__
    assert ckpt.Entry.n_sequence_fields == 12 and ckpt.Entry.n_fields == 13
