"""ckpt.load() writes a savepoint from Python's entries as `ckpt load` does from NDJSON: what
Snapshot.entries() yields loads back to the same dump, dicts change values, and an iterator
that raises or an entry that does not fit leaves nothing behind."""

import json

import pytest

import ckpt
from conftest import SAMPLE, run_ckpt


def dump_lines(path):
    return run_ckpt("dump", path).stdout.splitlines()


def test_entries_of_a_snapshot_load_back_to_the_same_dump(tmp_path):
    document = ckpt.load(ckpt.open(SAMPLE).entries(jobs=2), tmp_path / "out", like=SAMPLE)
    assert document["schema"] == "ckpt.load/1"
    assert document["line_count"] == len(dump_lines(SAMPLE)) == 11
    assert dump_lines(tmp_path / "out") == dump_lines(SAMPLE)
    # The same from the NDJSON file `ckpt dump` wrote, and from its lines as bytes.
    ndjson = tmp_path / "entries.ndjson"
    ndjson.write_text(run_ckpt("dump", SAMPLE).stdout)
    ckpt.load(ndjson, tmp_path / "from-file", like=ckpt.open(SAMPLE), to="rocksdb")
    assert dump_lines(tmp_path / "from-file") == dump_lines(SAMPLE)
    ckpt.load((line.encode() for line in dump_lines(SAMPLE)), tmp_path / "from-bytes", like=SAMPLE)
    assert dump_lines(tmp_path / "from-bytes") == dump_lines(SAMPLE)


def test_dicts_change_values(tmp_path):
    lines = [json.loads(line) for line in dump_lines(SAMPLE)]
    changed = [dict(e, value=e["value"] + 1000) if e["state"] == "count" else e for e in lines]
    ckpt.load(changed, tmp_path / "out", like=SAMPLE)
    counts = {json.dumps(e["key"]): e["value"] for e in map(json.loads, dump_lines(tmp_path / "out"))
              if e["state"] == "count"}
    before = {json.dumps(e["key"]): e["value"] for e in lines if e["state"] == "count"}
    assert counts == {k: v + 1000 for k, v in before.items()} and len(counts) == 8


def test_an_iterator_that_raises_writes_nothing(tmp_path):
    class Boom(Exception):
        pass

    def entries():
        yield from ckpt.open(SAMPLE).entries()
        raise Boom("the source failed after every entry")

    with pytest.raises(Boom):
        ckpt.load(entries(), tmp_path / "out", like=SAMPLE)
    assert not (tmp_path / "out").exists()
    with pytest.raises(TypeError):
        ckpt.load([42], tmp_path / "out", like=SAMPLE)
    assert not (tmp_path / "out").exists()


def test_an_entry_that_does_not_fit_names_its_line(tmp_path):
    lines = [json.loads(line) for line in dump_lines(SAMPLE)]
    lines[4] = dict(lines[4], value="not a number")
    with pytest.raises(ckpt.InvalidArgumentError) as caught:
        ckpt.load(lines, tmp_path / "out", like=SAMPLE)
    assert "<python>:5" in str(caught.value)
    assert not (tmp_path / "out").exists()
    with pytest.raises(ckpt.InvalidArgumentError):
        ckpt.load(lines, tmp_path / "out")


def test_edit_upserts_entries_and_deletes_where(tmp_path):
    lines = [json.loads(line) for line in dump_lines(SAMPLE)]
    counts = [e for e in lines if e["state"] == "count"]
    # One value replaced and one key added, from Python's entries.
    added = dict(counts[0], key=1000, value=7)
    del added["key_group"]  # the key's group is Flink's assignment, computed on writing
    document = ckpt.edit(SAMPLE, tmp_path / "up", upsert=[dict(counts[0], value=99), added])
    assert document["schema"] == "ckpt.edit/1"
    after = {e["key"]: e["value"] for e in map(json.loads, dump_lines(tmp_path / "up")) if e["state"] == "count"}
    assert after[counts[0]["key"]] == 99 and after[1000] == 7 and len(after) == len(counts) + 1
    # A source that fails half-way: its exception, and no output.
    def failing():
        yield dict(counts[1], value=5)
        raise KeyError("source")

    with pytest.raises(KeyError):
        ckpt.edit(SAMPLE, tmp_path / "failed", upsert=failing())
    assert not (tmp_path / "failed").exists()
    # delete_where over the state's query table: the entries whose value is above 3 go.
    ckpt.edit(SAMPLE, tmp_path / "pruned", delete_where={"count": "value > 3"})
    kept = {e["key"]: e["value"] for e in map(json.loads, dump_lines(tmp_path / "pruned")) if e["state"] == "count"}
    assert kept == {e["key"]: e["value"] for e in counts if e["value"] <= 3} and 0 < len(kept) < len(counts)
