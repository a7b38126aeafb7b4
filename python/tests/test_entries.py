"""Entries from Python equal `ckpt dump`'s lines, through the documented conversions."""

import decimal
import datetime

import pytest

import ckpt
from conftest import SAMPLE, canonical, corpus_params, run_ckpt


def dump_lines(path, plan=None):
    """`ckpt dump`'s lines, and its error message when it could not read everything."""
    args = ["dump", path] + (["--plan", plan] if plan else [])
    r = run_ckpt(*args, check=False)
    error = r.stderr.split("ckpt: error: ", 1)[1].strip() if r.returncode == 2 else None
    return [canonical(line) for line in r.stdout.splitlines()], error


def python_lines(path, plan=None, **options):
    """The entries' lines, and the message of the ckpt.Error that ended them, if one did."""
    lines = []
    try:
        for e in ckpt.open(path, plan=plan).entries(**options):
            lines.append(canonical(ckpt.entry_json(e)))
    except ckpt.Error as error:
        assert error.file, "a reading error names its file"
        return lines, str(error)
    return lines, None


def test_sample_savepoint_entries_equal_dump_lines():
    expected = dump_lines(SAMPLE)
    assert len(expected[0]) > 10 and expected[1] is None
    assert python_lines(SAMPLE) == expected
    # Worker threads change nothing of the order.
    assert python_lines(SAMPLE, jobs=3) == expected


@pytest.mark.parametrize("path,plan", corpus_params())
def test_corpus_entries_equal_dump_lines(path, plan):
    expected = dump_lines(path, plan)
    assert python_lines(path, plan) == expected
    # values="json": no conversion at all, the same lines.
    assert python_lines(path, plan, values="json") == expected


def test_filters_select_what_dump_selects():
    snapshot = ckpt.open(SAMPLE)
    keyed = [e for e in snapshot.entries() if e.kind == "keyed"]
    assert keyed
    first = keyed[0]
    by_key = list(snapshot.entries(keys=[first.key]))
    assert first in by_key and all(e.key == first.key for e in by_key)
    r = run_ckpt("dump", SAMPLE, "--key", ckpt.json_text(first.key))
    assert [canonical(ckpt.entry_json(e)) for e in by_key] == [canonical(l) for l in r.stdout.splitlines()]
    in_group = list(snapshot.entries(key_groups=first.key_group))
    assert in_group and all(e.key_group == first.key_group for e in in_group)
    assert {e.state for e in snapshot.entries(state=first.state)} == {first.state}
    with pytest.raises(ckpt.NotFoundError):
        snapshot.entries(operator="ffffffffffffffffffffffffffffffff")


def test_an_opened_snapshot_reads_its_metadata_once(tmp_path):
    # Each entries() call selects anew from what ckpt.open() read: key lookups one at a time
    # do not read `_metadata` again (here it is gone after the opening).
    import shutil
    copy = tmp_path / "sp"
    shutil.copytree(SAMPLE, copy)
    snapshot = ckpt.open(str(copy))
    (copy / "_metadata").unlink()
    with pytest.raises(ckpt.Error):
        ckpt.open(str(copy))
    keyed = [e for e in ckpt.open(SAMPLE).entries() if e.kind == "keyed"]
    for e in keyed[:5]:
        assert e in list(snapshot.entries(keys=[e.key]))


def test_raw_bytes_and_entry_bytes():
    for e in ckpt.open(SAMPLE).entries(raw=True):
        assert e.raw is not None
        key, namespace, user_key, value = e.raw
        assert e.entry_bytes == sum(len(b) for b in (key, namespace, user_key, value) if b is not None)


def test_documented_conversions_round_trip():
    assert ckpt.to_json(decimal.Decimal("-123.4500")) == {"unscaled": -1234500, "scale": 4}
    assert ckpt.to_json(decimal.Decimal("1E+3")) == {"unscaled": 1, "scale": -3}
    big = decimal.Decimal("123456789012345678901234567890.5")
    assert ckpt.to_json(big) == {"unscaled": "1234567890123456789012345678905", "scale": 1}
    assert ckpt.to_json(datetime.datetime(1969, 12, 31, 23, 59, 59, 999000)) == {"millis": -1, "nano_of_milli": 0}
    assert ckpt.to_json(datetime.datetime(2024, 1, 2, 3, 4, 5, 678901)) == {
        "millis": 1704164645678, "nano_of_milli": 901000}
    assert ckpt.to_json(b"\x00\xff") == {"bytes": "00ff"}
    assert ckpt.json_text({"a": [b"\x01", decimal.Decimal("0.10")]}) == \
        '{"a":[{"bytes":"01"},{"unscaled":10,"scale":2}]}'


def test_byte_array_values_are_bytes_and_print_as_dump_prints_them(tmp_path):
    # byte[] values (the generator's) come from the reader as bytes, never as hex text.
    out = tmp_path / "snapshot"
    run_ckpt("generate", "--output", out, "--keys", "200", "--value-size", "7", "--states", "value,map", "-q")
    entries = list(ckpt.open(out).entries())
    assert len(entries) > 200
    assert all(isinstance(e.value, bytes) and len(e.value) == 7 for e in entries)
    expected = dump_lines(out)
    assert expected[1] is None
    assert python_lines(out) == expected
    raw = list(ckpt.open(out).entries(values="json"))
    assert all(set(e.value) == {"bytes"} and len(e.value["bytes"]) == 14 for e in raw)
    assert python_lines(out, values="json") == expected
