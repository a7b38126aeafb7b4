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
Snapshot.verify(), ckpt.diff(), ckpt.gc(), ckpt.restore().
"""

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
    "open", "diff", "gc", "restore", "inspect", "verify", "Snapshot", "Entry", "Entries", "to_json",
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
    use the credential chain of the `ckpt` program (ckpt(1), OBJECT STORES); one at a time.
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
