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


def test_convert_equals_convert_json(tmp_path):
    out = tmp_path / "converted"
    document = ckpt.convert(SAMPLE, out, to="heap")
    assert document["schema"] == "ckpt.convert/1" and (out / "_metadata").is_file()
    # The same command over the same output: the same document.
    assert document == cli_document("convert", SAMPLE, "--to", "heap", "--output", out, "--force")
    assert ckpt.convert(ckpt.open(SAMPLE), out, to="canonical", force=True) == cli_document(
        "convert", SAMPLE, "--to", "canonical", "--output", out, "--force")
    with pytest.raises(ckpt.InvalidArgumentError):
        ckpt.convert(SAMPLE, tmp_path / "other", to="parquet")


def test_edit_equals_edit_json(tmp_path):
    keyed = "20ba6b65f97481d5570070de90e4e791"
    assert ckpt.edit(SAMPLE, dry_run=True, max_parallelism=256) == cli_document(
        "edit", SAMPLE, "--dry-run", "--max-parallelism", "256")
    out = tmp_path / "edited"
    document = ckpt.edit(SAMPLE, out, drop_operators=["bc764cd8ddf7a0cff126f51c16239658"],
                         set_uids={keyed: "counter"}, max_parallelism={keyed: 64}, to="rocksdb")
    assert document["schema"] == "ckpt.edit/1" and (out / "_metadata").is_file()
    assert [c["operation"] for c in document["changes"]] == ["drop-operator", "set-uid", "max-parallelism"]
    assert document == cli_document("edit", SAMPLE, "--output", out, "--force", "--drop-operator",
                                    "bc764cd8ddf7a0cff126f51c16239658", "--set-uid", f"{keyed}=counter",
                                    "--max-parallelism", f"{keyed}=64", "--to", "rocksdb")


def test_edit_deletes_keys_as_the_cli_does(tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text("4\n8\n99999\n")
    document = ckpt.edit(SAMPLE, dry_run=True, delete_keys=[4, 8, 99999])
    assert document["unmatched_keys"] == ["99999"]
    assert document["erased_keys"][0]["entry_count"] == 2
    r = run_ckpt("edit", SAMPLE, "--dry-run", "--delete-keys", keys, "--json")
    assert r.returncode == 1  # a key that matched nothing
    assert document == json.loads(r.stdout)
    with pytest.raises(ckpt.Error):
        ckpt.edit(SAMPLE, dry_run=True, drop_states=[("no-such-operator", "count")])
