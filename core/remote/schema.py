"""The shape of every message a peer takes, checked in the reader before anything runs.

A message that is not one of the protocol's kinds, lacks a field, carries one it does not take,
or holds a value of the wrong type (a float or `inf` where an integer belongs, a list where a map
belongs, a map nested deeper than `MAX_NESTING`) is a `CodecError`: the peer answers one
protocol error line and closes that connection (`routerlab.core.serving.host`). Burn's server
decodes a batch with serde against its types the same way; one it cannot decode ends the
connection (`crates/burn-remote/src/server/pump.rs:95-96`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..base.limits import MAX_NESTING
from . import protocol as P
from .protocol import CodecError

Check = Callable[[Any], bool]
U63 = (1 << 63) - 1
TEXT_BYTES = 4096
"""The longest string field (a device, a peer name, an address, a reason)."""


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= U63


def _str(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= TEXT_BYTES


def _bool(value: Any) -> bool:
    return isinstance(value, bool)


def _map(value: Any) -> bool:
    return isinstance(value, dict)


def _number(value: Any) -> bool:
    return (_int(value) or isinstance(value, float)) and math.isfinite(value)


def _optional(check: Check) -> Check:
    return lambda value: value is None or check(value)


def _source(value: Any) -> bool:
    """Where a `RegisterTensorRemote` fetches its bytes: pushed, or a server's `/data`."""
    if not isinstance(value, dict):
        return False
    if set(value) == {"push"}:
        return value["push"] is True
    return set(value) == {"address", "client"} and _str(value["address"]) and \
        _int(value["client"])


_TASK = {"device": _str, "op": _map, "id": _optional(_int), "source": _source}
_FAULT = {"kind": _str, "when": _optional(_str), "message": _optional(_str),
          "seconds": _number, "device": _optional(_str), "limit": _int}

FIELDS: dict[str, dict[str, Check]] = {
    P.INIT: {"version": _int, "client": _int, "peer": _str, "policy": _optional(_str),
             "cubecl_legacy": _optional(_bool)},
    P.OPEN: {"device": _str},
    **{kind: {k: v for k, v in _TASK.items() if k != "source"} for kind in P.TASKS},
    P.REGISTER_TENSOR_REMOTE: _TASK,
    P.SYNC: {"first": _optional(_str), "sent": _optional(_int)},
    P.COMMIT: {}, P.ROLLBACK: {}, P.CLOSE: {},
    P.REGISTRY: {"device": _str},
    P.STATS: {"device": _str},
    P.PUBLISH: {"transfer": _int, "data": _optional(_map), "reason": _optional(_str)},
    P.FAULT: {"fault": lambda value: _map(value) and "kind" in value and
              _fields(value, _FAULT) is None},
}
"""Each `/session` kind's fields beyond `k` and `id` (every one optional unless `REQUIRED`)."""
DATA_FIELDS: dict[str, dict[str, Check]] = {
    P.DOWNLOAD: {"client": _int, "transfer": _int, "transport": _str},
}
REQUIRED: dict[str, tuple[str, ...]] = {
    P.INIT: ("version", "client", "peer"), P.OPEN: ("device",),
    **{kind: ("device", "op") for kind in P.TASKS},
    P.REGISTER_TENSOR_REMOTE: ("device", "op", "source"),
    P.REGISTRY: ("device",), P.PUBLISH: ("transfer",), P.FAULT: ("fault",),
    P.DOWNLOAD: ("client", "transfer", "transport"),
}


def check(message: dict[str, Any], route: str = "/session") -> None:
    """Refuse a message that is not of the protocol (see the module) with one line."""
    kind = message.get("k")
    table = (FIELDS if route == "/session" else DATA_FIELDS).get(kind)  # type: ignore[arg-type]
    if table is None:
        known = ", ".join(FIELDS if route == "/session" else DATA_FIELDS)
        raise CodecError(f"unknown message kind {_short(kind)} on {route} (known: {known})")
    if not _optional(_int)(message.get("id")):
        raise CodecError(f"{kind}: the request id must be a non-negative int, got "
                         f"{_short(message.get('id'))}")
    fields = {k: v for k, v in message.items() if k not in ("k", "id")}
    missing = [f for f in REQUIRED.get(kind, ()) if f not in fields]  # type: ignore[arg-type]
    if missing:
        raise CodecError(f"{kind} without {', '.join(missing)}")
    wrong = _fields(fields, table)
    if wrong is not None:
        raise CodecError(f"{kind}: {wrong}")
    nesting(message)


def _fields(fields: dict[str, Any], table: dict[str, Check]) -> str | None:
    for name, value in fields.items():
        valid = table.get(name) if isinstance(name, str) else None
        if valid is None:
            return f"unknown field {_short(name)}"
        if not valid(value):
            return f"field {name!r} of the wrong type or size ({_short(value)})"
    return None


def nesting(value: Any, limit: int = MAX_NESTING) -> None:
    """Refuse data nested deeper than `limit` (walked without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            raise CodecError(f"a message nested deeper than {limit} levels")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def _short(value: Any) -> str:
    """A value as a short, safe piece of an error line (never a deep `repr`)."""
    if isinstance(value, dict | list):
        return f"a {type(value).__name__} of {len(value)}"
    text = repr(value) if isinstance(value, str | int | float | bool | None) else \
        f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."
