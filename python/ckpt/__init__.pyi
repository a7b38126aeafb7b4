# Type stubs of the package `ckpt` (python/ckpt/__init__.py and the extension ckpt._ckpt).
import datetime
import decimal
import os
from typing import Any, Dict, Iterable, Iterator, List, Literal, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

__version__: str

PathLike = Union[str, os.PathLike[str]]
# What a decoded value is in Python (values="python"); values="json" leaves out the last three.
Value = Union[None, bool, int, float, str, List["Value"], Dict[str, "Value"], bytes, decimal.Decimal, datetime.datetime]
Remap = Union[None, Mapping[str, PathLike], Sequence[str], str]

class Error(Exception):
    code: str
    message: str
    file: Optional[str]
    offset: Optional[int]
    context: Optional[str]

class CorruptionError(Error): ...
class NotSupportedError(Error): ...
class StorageError(Error, OSError): ...
class InvalidArgumentError(Error, ValueError): ...
class NotFoundError(Error, LookupError): ...

class Entry(Tuple[Any, ...]):
    @property
    def operator(self) -> str: ...
    @property
    def uid(self) -> Optional[str]: ...
    @property
    def subtask(self) -> int: ...
    @property
    def state(self) -> str: ...
    @property
    def kind(self) -> Literal["keyed", "timer", "operator"]: ...
    @property
    def key_group(self) -> Optional[int]: ...
    @property
    def key(self) -> Value: ...
    @property
    def namespace(self) -> Value: ...
    @property
    def user_key(self) -> Value: ...
    @property
    def value(self) -> Value: ...
    @property
    def entry_bytes(self) -> int: ...
    @property
    def raw(self) -> Optional[Tuple[Optional[bytes], Optional[bytes], Optional[bytes], bytes]]: ...
    @property
    def present(self) -> int: ...

class Entries(Iterator[Entry]):
    def __iter__(self) -> "Entries": ...
    def __next__(self) -> Entry: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Entries": ...
    def __exit__(self, *args: Any) -> None: ...

class Snapshot:
    @property
    def path(self) -> str: ...
    @property
    def metadata(self) -> Dict[str, Any]: ...
    def entries(
        self,
        operator: Optional[str] = None,
        state: Optional[str] = None,
        subtask: Optional[int] = None,
        key_groups: Union[None, int, Tuple[int, int]] = None,
        keys: Union[None, Value, Sequence[Value]] = None,
        jobs: int = 1,
        values: Literal["python", "json"] = "python",
        raw: bool = False,
    ) -> Entries: ...
    def __iter__(self) -> Entries: ...
    def inspect(self, count: bool = False, verbose: bool = False, jobs: int = 1) -> Dict[str, Any]: ...
    def verify(self, deep: bool = False, jobs: int = 1) -> Dict[str, Any]: ...
    def to_pandas(self, state: Optional[str] = None, columns: Literal["named", "raw"] = "named", **filters: Any) -> Any: ...

def open(
    path: PathLike, plan: Optional[PathLike] = None, uids: Union[None, str, Iterable[str]] = None, remap: Remap = None
) -> Snapshot: ...
def inspect(path: PathLike, count: bool = False, verbose: bool = False, jobs: int = 1, **names: Any) -> Dict[str, Any]: ...
def verify(path: PathLike, deep: bool = False, jobs: int = 1, **names: Any) -> Dict[str, Any]: ...
def diff(
    a: Union[PathLike, Snapshot],
    b: Union[PathLike, Snapshot],
    keys: bool = False,
    state: Optional[str] = None,
    jobs: int = 1,
    plan: Optional[PathLike] = None,
    uids: Union[None, str, Iterable[str]] = None,
    remap: Remap = None,
) -> Dict[str, Any]: ...
def gc(
    root: PathLike, apply: bool = False, older_than: str = "1d", referenced_by: Iterable[PathLike] = (), allow_empty: bool = False
) -> Dict[str, Any]: ...
def restore(
    snapshot: Union[PathLike, Snapshot],
    output: PathLike,
    operator: Optional[str] = None,
    subtask: Optional[int] = None,
    key_groups: Union[None, int, Tuple[int, int]] = None,
    link: bool = False,
    full_check: bool = False,
    jobs: int = 1,
    force: bool = False,
    remap: Remap = None,
) -> Dict[str, Any]: ...
def convert(
    src: Union[PathLike, Snapshot],
    dst: PathLike,
    to: Literal["rocksdb", "heap", "hashmap", "canonical"],
    jobs: int = 1,
    force: bool = False,
    remap: Remap = None,
    key_serializers_from: Optional[PathLike] = None,
) -> Dict[str, Any]: ...
def edit(
    snapshot: Union[PathLike, Snapshot],
    output: Optional[PathLike] = None,
    *,
    drop_operators: Iterable[str] = (),
    set_uids: Union[None, Dict[str, str], Iterable[Tuple[str, str]]] = None,
    set_ids: Union[None, Dict[str, str], Iterable[Tuple[str, str]]] = None,
    drop_states: Iterable[Tuple[str, str]] = (),
    delete_keys: Iterable[Value] = (),
    keys_operator: Optional[str] = None,
    max_parallelism: Union[None, int, Dict[str, int]] = None,
    parallelism: int = 0,
    expire: Union[None, Dict[str, Union[str, int, datetime.timedelta]], Iterable[Tuple[str, Union[str, int, datetime.timedelta]]]] = None,
    now: Union[None, int, str, datetime.datetime] = None,
    plan: Optional[PathLike] = None,
    to: Optional[Literal["rocksdb", "heap", "hashmap", "canonical"]] = None,
    dry_run: bool = False,
    force: bool = False,
    jobs: int = 1,
    remap: Remap = None,
    key_serializers_from: Optional[PathLike] = None,
    upsert: Optional[Iterable[Union[Entry, Dict[str, Any], str, bytes]]] = None,
    delete_where: Union[None, Dict[str, str], Iterable[Tuple[str, str]]] = None,
    keep_where: Union[None, Dict[str, str], Iterable[Tuple[str, str]]] = None,
) -> Dict[str, Any]: ...
def to_json(value: Value) -> Any: ...
def json_text(value: Value) -> str: ...
def entry_json(entry: Entry) -> str: ...
def ls(path: PathLike, remap: Remap = None) -> Dict[str, Any]: ...

class Rows(List[Tuple[Any, ...]]):
    columns: List[str]
    def __init__(self, columns: Iterable[str], rows: Iterable[Tuple[Any, ...]]) -> None: ...
    def dicts(self) -> List[Dict[str, Any]]: ...
    def to_pandas(self) -> Any: ...

def query(
    paths: Union[PathLike, Snapshot, Iterable[Union[PathLike, Snapshot]]],
    sql: str,
    plan: Optional[PathLike] = None,
    uids: Union[None, str, Iterable[str]] = None,
    remap: Remap = None,
    jobs: int = 1,
) -> Rows: ...
def upgrade_check(path: Union[PathLike, Snapshot], remap: Remap = None) -> Dict[str, Any]: ...
def load(
    entries: Union[PathLike, Iterable[Union[Entry, Dict[str, Any], str, bytes]]],
    output: PathLike,
    like: Union[None, PathLike, Snapshot] = None,
    spec: Union[None, PathLike, Dict[str, Any]] = None,
    to: Optional[Literal["rocksdb", "heap", "hashmap", "canonical"]] = None,
    force: bool = False,
    jobs: int = 1,
    remap: Remap = None,
) -> Dict[str, Any]: ...
