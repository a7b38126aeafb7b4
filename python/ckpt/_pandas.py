"""Snapshot.to_pandas(): entries as a DataFrame. pandas is imported here, on use only."""

_ENTRY_COLUMNS = ["operator", "uid", "subtask", "state", "kind", "key_group", "key", "namespace", "user_key",
                  "value", "entry_bytes"]


def _named(prefix, value, row):
    """A dict's members as columns `prefix.member`; a key row's fields as `key.<column>`."""
    if isinstance(value, dict):
        fields = value.get("fields")
        if len(value) == 2 and "kind" in value and isinstance(fields, (dict, list)):
            # A SQL key or value row: its fields (named after the plan's columns where known).
            items = fields.items() if isinstance(fields, dict) else ((f"f{i}", v) for i, v in enumerate(fields))
            for name, v in items:
                row[f"{prefix}.{name}"] = v
            row[f"{prefix}.kind"] = value["kind"]
            return
        for name, v in value.items():
            row[f"{prefix}.{name}"] = v
        return
    row[prefix] = value


def to_pandas(snapshot, state=None, columns="named", **filters):
    """The entries of `snapshot` (filters as Snapshot.entries()) as a pandas DataFrame.

    columns="named": the query layer's columns (operator, uid, subtask, state, kind,
    key_group, entry_bytes) with the key, namespace, user key and value taken apart: an
    object's members become columns `key.<member>`, `value.<member>` (a SQL row's fields named
    after the plan's columns with plan=), scalars stay in `key`, `value`. Columns are typed
    by pandas from the values (int64, float64, datetime64 for timestamps, object otherwise).
    columns="raw": one column per Entry field, values as the entries hold them.
    """
    import pandas

    if columns not in ("named", "raw"):
        raise ValueError(f"columns must be 'named' or 'raw', not {columns!r}")
    rows = []
    for e in snapshot.entries(state=state, **filters):
        if columns == "raw":
            rows.append(e[:11])
            continue
        row = {"operator": e.operator, "uid": e.uid, "subtask": e.subtask, "state": e.state, "kind": e.kind,
               "key_group": e.key_group, "entry_bytes": e.entry_bytes}
        for prefix, bit in (("key", 1), ("namespace", 2), ("user_key", 4)):
            if e.present & bit:
                _named(prefix, getattr(e, prefix), row)
        _named("value", e.value, row)
        rows.append(row)
    if columns == "raw":
        return pandas.DataFrame.from_records(rows, columns=_ENTRY_COLUMNS)
    frame = pandas.DataFrame.from_records(rows)
    return frame.convert_dtypes(convert_string=False, convert_boolean=False, convert_floating=False) \
        if len(frame) else frame
