"""Errors are ckpt.Error subclasses carrying libckpt's code, file and offset, as the CLI says them."""

import shutil

import pytest

import ckpt
from conftest import SAMPLE, run_ckpt


@pytest.fixture
def damaged(tmp_path):
    copy = tmp_path / "savepoint"
    shutil.copytree(SAMPLE, copy)
    return copy


def cli_error(*args):
    r = run_ckpt(*args, check=False)
    assert r.returncode == 2
    return r.stderr.split("ckpt: error: ", 1)[1].splitlines()[0]


def test_truncated_metadata_raises_corruption_with_file_and_offset(damaged):
    metadata = damaged / "_metadata"
    metadata.write_bytes(metadata.read_bytes()[:700])
    with pytest.raises(ckpt.CorruptionError) as caught:
        ckpt.open(damaged)
    e = caught.value
    assert e.code == "corruption"
    assert e.file == str(metadata)
    assert isinstance(e.offset, int) and 0 < e.offset <= 700
    assert str(e) == cli_error("dump", damaged)


def test_damaged_state_file_raises_while_iterating_with_its_file_and_offset(damaged):
    # The keyed state of subtask 0: its key-group offsets, then the entries; cut in the entries.
    state = max((p for p in damaged.iterdir() if p.name != "_metadata"), key=lambda p: p.stat().st_size)
    data = bytearray(state.read_bytes())
    for i in range(len(data) // 2, len(data)):
        data[i] ^= 0xFF
    state.write_bytes(bytes(data))
    entries = []
    with pytest.raises(ckpt.Error) as caught:
        for e in ckpt.open(damaged).entries():
            entries.append(e)
    e = caught.value
    assert e.file and e.file.endswith(state.name) or e.file.endswith("_metadata")
    assert isinstance(e.offset, int)
    assert str(e) == cli_error("dump", damaged)


def test_missing_snapshot_and_bad_arguments():
    with pytest.raises(ckpt.NotFoundError) as caught:
        ckpt.open("/nonexistent/savepoint")
    assert isinstance(caught.value, LookupError) and caught.value.offset is None
    with pytest.raises(ckpt.InvalidArgumentError):
        ckpt.open(SAMPLE, remap=["no-equals-sign"])
    with pytest.raises(ValueError):
        ckpt.open(SAMPLE).entries(values="yaml")


def test_file_of_the_wrong_size_raises_as_dump_does(damaged):
    # A state file longer than its handle says (a byte appended past every entry): every entry
    # still decodes, yet dump refuses the snapshot; so must the iteration and a query, or a
    # script could write a clean copy of a damaged savepoint.
    state = max((p for p in damaged.iterdir() if p.name != "_metadata"), key=lambda p: p.stat().st_size)
    data = state.read_bytes()
    state.write_bytes(data + b"\0")
    with pytest.raises(ckpt.CorruptionError) as caught:
        list(ckpt.open(damaged).entries())
    assert "size-mismatch" in str(caught.value)
    assert str(caught.value) == cli_error("dump", damaged)
    with pytest.raises(ckpt.CorruptionError):
        ckpt.query(damaged, "SELECT count(*) FROM entries")
