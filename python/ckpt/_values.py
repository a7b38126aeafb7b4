"""The documented conversions between Python values and `ckpt dump`'s JSON.

Entries (values='python') hold JSON's types with three conversions, undone by to_json():

    {"bytes": "<hex>"}                    bytes
    {"unscaled": u, "scale": s}           decimal.Decimal  (BigDecimal, DECIMAL(p, s))
    {"millis": m, "nano_of_milli": n}     datetime.datetime, naive, m ms after 1970-01-01T00:00
                                          (TIMESTAMP, TIMESTAMP_LTZ); only when exact: with
                                          sub-microsecond nanoseconds it stays a dict

Everything else is as `ckpt dump` prints it: integers int, floats float (NaN and the
infinities are the strings "NaN", "Infinity", "-Infinity"), strings str, arrays list, objects
dict in the printed member order, null None.
"""

import datetime
import decimal
import json

_EPOCH = datetime.datetime(1970, 1, 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)


def to_json(value):
    """`value` with the conversions undone: what `ckpt dump` printed for it, as JSON types."""
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, decimal.Decimal):
        sign, digits, exponent = value.as_tuple()
        unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
        if not _INT64[0] <= unscaled <= _INT64[1]:
            unscaled = str(unscaled)
        return {"unscaled": unscaled, "scale": -exponent}
    if isinstance(value, datetime.datetime):
        delta = value - _EPOCH
        micros = (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds
        return {"millis": micros // 1000, "nano_of_milli": micros % 1000 * 1000}
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return value


def json_text(value):
    """`value` as `ckpt dump` prints it: compact JSON of to_json(value)."""
    return json.dumps(to_json(value), separators=(",", ":"), ensure_ascii=False)


def key_json(key):
    """A key for entries(keys=...), as `ckpt dump --key` takes it."""
    return json_text(key)


def entry_json(entry):
    """The `ckpt dump` line of an entry (ckpt.Entry), without its newline."""
    line = {"operator": entry.operator}
    if entry.uid is not None:
        line["uid"] = entry.uid
    line["subtask"] = entry.subtask
    line["state"] = entry.state
    line["kind"] = entry.kind
    if entry.key_group is not None:
        line["key_group"] = entry.key_group
    for bit, name in ((1, "key"), (2, "namespace"), (4, "user_key")):
        if entry.present & bit:
            line[name] = getattr(entry, name)
    line["value"] = entry.value
    return json_text(line)
