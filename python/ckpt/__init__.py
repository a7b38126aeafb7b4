"""ckpt: Apache Flink checkpoints and savepoints in Python, without a JVM.

    import ckpt
    snap = ckpt.open("savepoint-1234", plan="plan.json")
    snap.metadata["operators"]                  # what `ckpt inspect --json` prints
    for e in snap.entries(state="counts", jobs=2):
        print(e.key, e.value)                    # as `ckpt dump` prints them
    df = snap.to_pandas(state="counts")          # pandas, imported on use

Thin over libckpt's public API (the same library as the `ckpt` program): entries stream from
worker threads with the GIL released; memory stays flat whatever the snapshot's size. Values
are Python's JSON types with three documented conversions (see ckpt.to_json): byte strings
are bytes, decimals decimal.Decimal, timestamps datetime.datetime. Errors raise ckpt.Error
subclasses carrying the code, file and byte offset of libckpt's error.

The operations with a `--json` document return it as a dict: Snapshot.inspect(),
Snapshot.verify(), ckpt.diff(), ckpt.gc(), ckpt.restore(), ckpt.convert(), ckpt.edit(),
ckpt.ls(), ckpt.upgrade_check(), ckpt.load(). ckpt.query() runs SQL over snapshots and
returns its rows.
"""

import builtins as _builtins
import datetime as _datetime
import os as _os

from . import _ckpt
from ._ckpt import Entries, Entry, Snapshot
from ._errors import (
    CorruptionError,
    Error,
    InvalidArgumentError,
    NotFoundError,
    NotSupportedError,
    StorageError,
)
from ._values import entry_json, json_text, to_json

__version__ = _ckpt.__version__

__all__ = [
    "open", "diff", "gc", "restore", "convert", "edit", "inspect", "verify", "ls", "query", "upgrade_check", "load", "Rows",
    "Snapshot", "Entry", "Entries", "to_json",
    "json_text", "entry_json", "Error", "CorruptionError", "NotSupportedError", "StorageError",
    "InvalidArgumentError", "NotFoundError", "__version__",
]


def _path(p):
    if isinstance(p, Snapshot):
        return p.path
    return _os.fspath(p)


def _optional_path(p):
    return None if p is None else _os.fspath(p)


def _uids(uids):
    if uids is None:
        return []
    if isinstance(uids, str):
        return [uids]
    return list(uids)


def _remap(remap):
    """{prefix: directory} or ["PREFIX=DIR", ...] as --remap takes them."""
    if remap is None:
        return []
    if isinstance(remap, dict):
        return [f"{prefix}={_os.fspath(target)}" for prefix, target in remap.items()]
    if isinstance(remap, str):
        return [remap]
    return list(remap)


def open(path, plan=None, uids=None, remap=None):  # noqa: A001 - the module's verb, like io.open
    """Open the snapshot at `path` (its directory, its `_metadata`, or an s3:// URI).

    plan:  a compiled SQL plan (JSON file) naming the operators and their key columns (--plan)
    uids:  the job's uids, naming the operators they set (--uid); a list, or one str
    remap: where absolute file references are now: {prefix: directory} or ["PREFIX=DIR"] (--remap)

    `_metadata` is read and checked here; state is read as entries() asks for it. s3:// URIs
    use the credential chain of the `ckpt` program (ckpt(1), OBJECT STORES), read from the
    environment (AWS_PROFILE, AWS_ENDPOINT_URL, ...) as it is when the snapshot is opened: a
    change applies to the snapshots opened after it.
    Raises a ckpt.Error subclass (NotFoundError for a missing snapshot, CorruptionError with
    file and offset for a damaged `_metadata`).
    """
    return _ckpt._open(_os.fspath(path), _optional_path(plan), _uids(uids), _remap(remap))


def inspect(path, count=False, verbose=False, jobs=1, **names):
    """`ckpt inspect --json PATH` as a dict (names: plan=, uids=, remap= as for open())."""
    return open(path, **names).inspect(count=count, verbose=verbose, jobs=jobs)


def verify(path, deep=False, jobs=1, **names):
    """`ckpt verify --json PATH` as a dict: the problems are in it, not raised."""
    return open(path, **names).verify(deep=deep, jobs=jobs)


def diff(a, b, keys=False, state=None, jobs=1, plan=None, uids=None, remap=None):
    """`ckpt diff --json A B` as a dict (keys=True: --keys, entry by entry)."""
    return _ckpt._diff(_path(a), _path(b), keys, state, jobs, _optional_path(plan), _uids(uids), _remap(remap))


def gc(root, apply=False, older_than="1d", referenced_by=(), allow_empty=False):
    """`ckpt gc --json ROOT` as a dict: files under shared/ and taskowned/ no snapshot references.

    apply=True deletes those older than `older_than` (a duration: "90s", "15m", "1h", "2d").
    """
    return _ckpt._gc(_os.fspath(root), apply, older_than, [_os.fspath(d) for d in referenced_by], allow_empty)


def restore(snapshot, output, operator=None, subtask=None, key_groups=None, link=False, full_check=False,
            jobs=1, force=False, remap=None):
    """`ckpt restore --json SNAPSHOT --output DIR` as a dict: RocksDB instances of the keyed state."""
    return _ckpt._restore(_path(snapshot), _os.fspath(output), operator, subtask, key_groups, link, full_check,
                          jobs, force, _remap(remap))


def convert(src, dst, to, jobs=1, force=False, remap=None, key_serializers_from=None):
    """`ckpt convert --json SRC --to TO --output DST` as a dict: the snapshot rewritten for another
    state backend's layout (to: "rocksdb", "heap" or "canonical")."""
    return _ckpt._convert(_path(src), _os.fspath(dst), to, jobs, force, _remap(remap),
                          _os.fspath(key_serializers_from) if key_serializers_from is not None else "")


def _pairs(spec):
    """{op: x} or [(op, x), ...] as the repeatable OP=X flags take them, in order."""
    if spec is None:
        return []
    items = spec.items() if isinstance(spec, dict) else spec
    return [(str(a), b) for a, b in items]


def _ttl_ms(ttl):
    if isinstance(ttl, _datetime.timedelta):
        return int(ttl / _datetime.timedelta(milliseconds=1))
    if isinstance(ttl, int):
        return ttl
    return _ckpt._ttl_ms(str(ttl))


def _epoch_ms(now):
    if now is None or isinstance(now, int):
        return now
    if isinstance(now, str):
        now = _datetime.datetime.fromisoformat(now.replace("Z", "+00:00"))
    if now.tzinfo is None:
        now = now.replace(tzinfo=_datetime.timezone.utc)
    return int((now - _datetime.datetime(1970, 1, 1, tzinfo=_datetime.timezone.utc)) / _datetime.timedelta(milliseconds=1))


def edit(snapshot, output=None, *, drop_operators=(), set_uids=None, set_ids=None, drop_states=(), delete_keys=(),
         keys_operator=None, max_parallelism=None, parallelism=0, expire=None, now=None, plan=None, to=None,
         dry_run=False, force=False, jobs=1, remap=None, key_serializers_from=None, upsert=None, delete_where=None,
         keep_where=None):
    """`ckpt edit --json SNAPSHOT --output DIR ...` as a dict: what each operation changed and what
    was written (dry_run=True: what would be, nothing written; output may then be None).

    drop_operators: operators (id, id prefix or uid) whose state is left out
    set_uids, set_ids: {operator: uid} / {operator: 32 hex digits} (or (operator, x) pairs)
    drop_states:    (operator, state) pairs
    delete_keys:    keys whose entries are erased, as Python values (ckpt.json_text spells them
                    as `ckpt dump` prints keys); keys_operator restricts them to one operator
    max_parallelism: M for every operator, or {operator: M}
    parallelism:    with max_parallelism, the new parallelism of the keyed operators
    expire:         {state: TTL} (a duration such as "1 d", a datetime.timedelta or milliseconds),
                    dropped as of `now` (ms since the epoch, a datetime in UTC, or ISO 8601 text);
                    plan: a SQL plan whose state TTLs expire at `now` too
    to:             "rocksdb", "heap" or "canonical": the layout keyed state is written in
    upsert:         entries that replace values or are added (--upsert): ckpt.Entry objects,
                    dicts in `ckpt dump`'s vocabulary or NDJSON lines, as ckpt.load() takes them
    delete_where, keep_where: {state: SQL WHERE text} (or (state, text) pairs) over the columns of
                    the state's `ckpt query` table: the entries matched are dropped, or the only
                    ones kept (--delete-where, --keep-where)
    """
    every, per_operator = 0, []
    if isinstance(max_parallelism, dict):
        per_operator = _pairs(max_parallelism)
    elif max_parallelism is not None:
        every = int(max_parallelism)
    return _ckpt._edit(
        _path(snapshot), "" if output is None else _os.fspath(output), list(drop_operators), _pairs(set_uids),
        _pairs(set_ids), [tuple(p) for p in drop_states], [json_text(k) for k in delete_keys], keys_operator or "",
        every, per_operator, parallelism, [(s, _ttl_ms(t)) for s, t in _pairs(expire)], _epoch_ms(now),
        _optional_path(plan), to, dry_run, force, jobs, _remap(remap),
        _os.fspath(key_serializers_from) if key_serializers_from is not None else "",
        None if upsert is None else _entry_lines(upsert), _pairs(delete_where), _pairs(keep_where))


def ls(path, remap=None):
    """`ckpt ls --json PATH` as a dict: the checkpoints and savepoints under `path` (a snapshot,
    a job's checkpoint directory, a directory of jobs or snapshots, or an s3:// prefix), complete
    or in progress, each with what ckpt gc would do about it."""
    return _ckpt._ls(_os.fspath(path), _remap(remap))


class Rows(list):
    """A query's result: its rows as tuples, in order, and `columns`, their names."""

    def __init__(self, columns, rows):
        super().__init__(rows)
        self.columns = list(columns)

    def dicts(self):
        """The rows as dicts of column name to value."""
        return [dict(zip(self.columns, row)) for row in self]

    def to_pandas(self):
        """The rows as a pandas DataFrame with the query's columns (pandas imported on use)."""
        import pandas

        return pandas.DataFrame(list(self), columns=self.columns)


def query(paths, sql, plan=None, uids=None, remap=None, jobs=1):
    """Run SQL (SQLite's dialect) over the snapshots under `paths` (one path or several), as
    `ckpt query PATH... SQL` does, and return the rows of its last statement that returns rows as
    ckpt.Rows (tuples, with `.columns`; `.dicts()`, `.to_pandas()`).

    The tables are those of ckpt-query(1): `entries` (one row per `ckpt dump` line; `key`,
    `namespace`, `user_key` and `value` are JSON text), `snapshots`, `operators`, `states`,
    `files`, and one per state, "operator.state", its key and value in named columns. Cells are
    SQLite's types: int, float, str, bytes or None. The result is held in memory: for every
    entry of a large state, iterate Snapshot.entries() instead.
    plan, uids, remap: as for open(); jobs: subtasks decoded at once.
    """
    if isinstance(paths, (str, bytes, Snapshot)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    results = _ckpt._query([_path(p) for p in paths], sql, _optional_path(plan), _uids(uids), _remap(remap), jobs)
    if not results:
        return Rows([], [])
    columns, rows = results[-1]
    return Rows(columns, rows)


def upgrade_check(path, remap=None):
    """`ckpt upgrade --check --to 2.x --json PATH` as a dict: for every state, whether Flink 2.x
    restores it and why not (`verdict` ok, unknown or fail, with its findings)."""
    return _ckpt._upgrade_check(_path(path), "2.x", _remap(remap))


def _entry_lines(entries):
    for e in entries:
        if isinstance(e, (str, bytes)):
            yield e
        elif isinstance(e, Entry):
            yield entry_json(e)
        elif isinstance(e, dict):
            yield json_text(e)
        else:
            raise TypeError(f"ckpt.load: an entry must be a ckpt.Entry, a dict or an NDJSON line, not {type(e).__name__}")


def load(entries, output, like=None, spec=None, to=None, force=False, jobs=1, remap=None):
    """`ckpt load --json` as a dict: a savepoint written at `output` from entries, shaped like a
    template snapshot (`like`) or described by a spec (`spec`), that Flink restores.

    entries: ckpt.Entry objects (as Snapshot.entries() yields them), dicts in `ckpt dump`'s
             vocabulary (Python values converted back as ckpt.to_json does), NDJSON lines (str
             or bytes), or the path of an NDJSON file; read as they come, memory bounded
    like:    the template snapshot: its operators, parallelism, states and serializers
    spec:    or a spec (formats/load-spec.md): a dict, or the path of its file
    to:      "heap", "rocksdb" or "canonical": the layout keyed state is written in
    An exception the entries raise is raised here, and nothing is written; so is an entry the
    template's serializers cannot hold (InvalidArgumentError naming the entry's line).
    """
    if (like is None) == (spec is None):
        message = "expected a template (like=) or a spec (spec=)"
        raise InvalidArgumentError(message, "invalid_argument", message)
    spec_text, spec_name = "", ""
    if isinstance(spec, dict):
        import json

        spec_text, spec_name = json.dumps(spec), "<spec>"
    elif spec is not None:
        spec_name = _os.fspath(spec)
        with _builtins.open(spec_name, encoding="utf-8") as f:
            spec_text = f.read()
    like_path = "" if like is None else _path(like)
    args = (_os.fspath(output), like_path, spec_text, spec_name, to, force, jobs, _remap(remap))
    if isinstance(entries, (str, bytes)) or hasattr(entries, "__fspath__"):
        name = _os.fspath(entries)
        with _builtins.open(name, "rb") as f:
            return _ckpt._load(f, name if isinstance(name, str) else name.decode(), *args)
    return _ckpt._load(_entry_lines(entries), "<python>", *args)
