"""ckpt.ls(), ckpt.query() and ckpt.upgrade_check() give what `ckpt ls --json`, `ckpt query` and
`ckpt upgrade --check --json` print."""

import json

import pytest

import ckpt
from conftest import SAMPLE, run_ckpt, shared_testdata


def test_ls_equals_ls_json():
    assert ckpt.ls(SAMPLE) == json.loads(run_ckpt("ls", SAMPLE, "--json").stdout)
    with pytest.raises(ckpt.NotFoundError):
        ckpt.ls(SAMPLE / "no-such-directory")


def test_query_rows_equal_the_cli_rows():
    sql = "SELECT state, kind, count(*) AS n, sum(length(value)) FROM entries GROUP BY state, kind ORDER BY state"
    rows = ckpt.query(SAMPLE, sql)
    assert rows.columns == ["state", "kind", "n", "sum(length(value))"]
    printed = [json.loads(line) for line in run_ckpt("query", SAMPLE, sql, "--format", "ndjson").stdout.splitlines()]
    assert rows.dicts() == printed
    assert len(rows) > 0 and all(isinstance(n, int) and n > 0 for _, _, n, _ in rows)
    # A Snapshot, a list of paths, and the same snapshot twice: twice the rows of each count.
    twice = ckpt.query([SAMPLE, ckpt.open(SAMPLE)], "SELECT count(*) FROM entries")
    once = ckpt.query(ckpt.open(SAMPLE), "SELECT count(*) FROM entries")
    assert twice[0][0] == 2 * once[0][0] > 0


def test_query_result_keeps_columns_when_empty_and_becomes_a_frame():
    rows = ckpt.query(SAMPLE, "SELECT operator, subtask FROM entries WHERE subtask < 0")
    assert list(rows) == [] and rows.columns == ["operator", "subtask"]
    pandas = pytest.importorskip("pandas")
    frame = ckpt.query(SAMPLE, "SELECT subtask, count(*) AS n FROM entries GROUP BY subtask").to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == ["subtask", "n"]
    assert frame["n"].sum() == ckpt.query(SAMPLE, "SELECT count(*) FROM entries")[0][0]


def test_query_errors_raise():
    with pytest.raises(ckpt.InvalidArgumentError):
        ckpt.query(SAMPLE, "SELECT nothing FROM nowhere")
    with pytest.raises(ckpt.NotFoundError):
        ckpt.query(SAMPLE / "no-such-directory", "SELECT 1")


def test_upgrade_check_equals_the_cli_document():
    document = ckpt.upgrade_check(SAMPLE)
    printed = run_ckpt("upgrade", "--check", "--to", "2.x", SAMPLE, "--json")
    assert document == json.loads(printed.stdout)
    assert document["state_count"] == len(document["states"]) > 0


def test_query_over_the_sql_corpus_root_sees_every_savepoint():
    root = shared_testdata() / "flink-sql"
    if not root.is_dir():
        pytest.skip(f"no {root} (CKPT_SHARED_DIR)")
    rows = ckpt.query(root, "SELECT count(*), sum(complete), count(DISTINCT job) FROM snapshots")
    assert list(rows) == [(95, 95, 95)]
    assert len(ckpt.ls(root)["snapshots"]) == 95
