"""Checks of the session exercise (docs/burn.md section 5 and 9): FIFO sessions and the
same-peer rendezvous in which either side may arrive first, and what a panic does to it."""

from __future__ import annotations

from typing import Any

from ...core import (
    READ_ONLY,
    READ_WRITE,
    BurnPanic,
    DropOp,
    ReadOp,
    RegisterLocalOp,
    RouterLabError,
    Runtime,
    TensorIr,
)
from .base import CheckFailure, Part, PredictSuite, choice

_EVENTS = ("wait", "expose", "take")
DEVICES = ("cpu:0", "cpu:1", "cpu:2", "cpu:3")
"""The devices sessions-1's variants move between."""


def _events(value: Any) -> list[str]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise CheckFailure('write a list of "device event" strings, e.g. ["cpu:0 expose"]',
                           got=repr(value), hint=1)
    out = []
    for item in value:
        parts = item.strip().lower().split()
        if len(parts) != 2 or parts[1] not in _EVENTS or parts[0] not in DEVICES:
            raise CheckFailure(f'each entry is "DEVICE EVENT" (e.g. "cpu:0 expose") with EVENT '
                               f"one of {', '.join(_EVENTS)}", got=repr(item), hint=1)
        out.append(" ".join(parts))
    return out


_fate = choice("ok", "panic", "hang")


def _devices(value: Any) -> list[str]:
    if not isinstance(value, list | tuple | set) or not all(
            isinstance(v, str) and v.strip().lower() in DEVICES for v in value):
        raise CheckFailure('write a list of devices, e.g. ["cpu:0"] ([] for none)',
                           got=repr(value), hint=1)
    return sorted(v.strip().lower() for v in value)


def _rendezvous(rt: Runtime, arrival: str, pair: list[str]) -> list[str]:
    x = rt.tensor([1.0, 2.0], pair[0], "f32")
    mark = len(rt.trace)
    rt.to_device(x, pair[1], arrival=arrival)
    return [f"{e.device} {e.kind}" for e in rt.trace.read(mark) if e.kind in _EVENTS]


def _sessions_answers(pair: list[str] = list(DEVICES[:2])) -> dict[str, Any]:  # noqa: B006
    """Run sessions-1's scenarios on the model, between the variant's two devices (a move
    goes from `pair[0]` to `pair[1]`), and observe."""
    rt = Runtime(sorted(pair))
    target_first = _rendezvous(rt, "target-first", pair)
    source_first = _rendezvous(rt, "source-first", pair)
    lonely = Runtime(sorted(pair))
    out = lonely.tensor([0.0], pair[1], "f32")
    try:
        lonely.submit(pair[1], RegisterLocalOp(99, TensorIr.uninit(out.id, out.shape,
                                                                   out.dtype)))
        never = "ok"
    except RouterLabError as error:
        never = "hang" if "wait forever" in str(error) else "panic"
    legacy = Runtime(sorted(pair), legacy=True)
    u8 = legacy.tensor([1, 2, 3], pair[0], "u8")
    try:
        legacy.to_device(u8, pair[1], arrival="target-first")
    except RouterLabError:
        pass
    ended = [str(d) for d in legacy.devices if legacy.session(d).ended is not None]
    return {"TARGET_FIRST": target_first, "SOURCE_FIRST": source_first, "NEVER_EXPOSED": never,
            "LEGACY_U8_ENDED": ended}


rendezvous = PredictSuite(
    "sessions-1",
    parts=[
        Part("TARGET_FIRST", "the wait/expose/take events of a target-first move", _events),
        Part("SOURCE_FIRST", "the wait/expose/take events of a source-first move", _events),
        Part("NEVER_EXPOSED", "what a register for a transfer nobody exposes does", _fate),
        Part("LEGACY_U8_ENDED", "the sessions ended by the legacy u8 move", _devices),
    ],
    oracle=_sessions_answers,
    mistakes={
        "thought the target never waits": lambda pair: {
            "TARGET_FIRST": [f"{pair[0]} expose", f"{pair[1]} take"]},
        "thought an unmatched take panics": lambda pair: {"NEVER_EXPOSED": "panic"},
    },
)


# --- sessions-2: the order of two tasks in one session ----------------------------------------

ORDERS = {"READ_THEN_DROP": ("read", "drop"), "DROP_THEN_READ": ("drop", "read")}
"""The two orders sessions-2 asks about (its statement submits the same two tasks)."""


def _read_result(value: Any) -> Any:
    if isinstance(value, str):
        return choice("panic")(value)
    if isinstance(value, list | tuple) and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        return [float(v) for v in value]
    raise CheckFailure('write the values the read returns, e.g. [0.0, 0.0], or "panic"',
                       got=repr(value), hint=1)


_alive = choice("alive", "ended")


def _in_order(order: tuple[str, ...], values: list[float]) -> tuple[Any, str]:
    """Submit a read and a Drop of one tensor (of `values`) to cpu:0 in `order`: what the read
    gave, and whether the session is alive afterwards."""
    rt = Runtime(["cpu:0"])
    x = rt.tensor([float(v) for v in values], "cpu:0", "f32")
    tasks = {"read": ReadOp(TensorIr(x.id, x.shape, READ_ONLY, x.dtype)),
             "drop": DropOp(TensorIr(x.id, x.shape, READ_WRITE, x.dtype))}
    read: Any = None
    try:
        for name in order:
            data = rt.submit("cpu:0", tasks[name])
            if data is not None:
                read = [float(v) for v in data.to_numpy().ravel()]
    except BurnPanic:
        read = "panic"
    return read, "alive" if rt.session("cpu:0").ended is None else "ended"


def _order_answers(a: int = 1, b: int = 2) -> dict[str, Any]:
    """Run sessions-2's two orders on the model, for x = [a, b], and observe."""
    read_first, _ = _in_order(ORDERS["READ_THEN_DROP"], [a, b])
    drop_first, state = _in_order(ORDERS["DROP_THEN_READ"], [a, b])
    return {"READ_THEN_DROP": read_first, "DROP_THEN_READ": drop_first, "SESSION_AFTER": state}


in_order = PredictSuite(
    "sessions-2",
    parts=[
        Part("READ_THEN_DROP", "what the read returns when it is submitted first", _read_result),
        Part("DROP_THEN_READ", "what the read returns when the Drop is submitted first",
             _read_result),
        Part("SESSION_AFTER", "cpu:0's session after the Drop-first order", _alive),
    ],
    oracle=_order_answers,
    mistakes={
        "thought the Drop wins whatever the order": lambda a, b: {"READ_THEN_DROP": "panic"},
        "thought the client's order does not reach the session": lambda a, b: {
            "DROP_THEN_READ": [float(a), float(b)], "SESSION_AFTER": "alive"},
    },
)
