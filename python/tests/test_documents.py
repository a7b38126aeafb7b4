"""Snapshot.metadata, inspect(), verify() and the operations equal the CLI's --json documents."""

import json

import pytest

import ckpt
from conftest import SAMPLE, corpus_params, run_ckpt


def cli_document(*args):
    r = run_ckpt(*args, "--json")
    return json.loads(r.stdout)


def test_sample_metadata_equals_inspect_json():
    snapshot = ckpt.open(SAMPLE)
    assert snapshot.metadata == cli_document("inspect", SAMPLE)
    assert snapshot.metadata["schema"] == "ckpt.inspect/1"
    assert snapshot.inspect(count=True, verbose=True) == cli_document("inspect", SAMPLE, "--count", "-v")
    assert ckpt.inspect(SAMPLE) == snapshot.metadata


@pytest.mark.parametrize("path,plan", corpus_params())
def test_corpus_metadata_equals_inspect_json(path, plan):
    names = ["--plan", plan] if plan else []
    r = run_ckpt("inspect", path, "--json", *names, check=False)
    if r.returncode == 2:
        with pytest.raises(ckpt.Error):
            ckpt.open(path, plan=plan).metadata
        return
    assert ckpt.open(path, plan=plan).metadata == json.loads(r.stdout)


def test_verify_equals_verify_json():
    snapshot = ckpt.open(SAMPLE)
    assert snapshot.verify() == cli_document("verify", SAMPLE)
    deep = snapshot.verify(deep=True)
    assert deep == cli_document("verify", SAMPLE, "--deep")
    assert deep["clean"] is True


def test_diff_equals_diff_json():
    assert ckpt.diff(SAMPLE, ckpt.open(SAMPLE), keys=True) == cli_document("diff", SAMPLE, SAMPLE, "--keys")


def test_restore_and_gc_return_their_documents(tmp_path):
    restored = ckpt.restore(SAMPLE, tmp_path / "restored")
    assert restored["schema"] == "ckpt.restore/1"
    assert (tmp_path / "restored").is_dir()
    with pytest.raises(ckpt.Error) as caught:
        ckpt.gc(tmp_path / "no-such-root")
    assert caught.value.code in ("not_found", "io_error", "invalid_argument")
    with pytest.raises(ckpt.InvalidArgumentError):
        ckpt.gc(tmp_path, older_than="soon")
