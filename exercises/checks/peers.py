"""Checks of the real-peer exercises (docs/faults.md, notebook 08): the bytes of a cross-peer move
go peer to peer; a server killed mid-transfer; a late message; Burn's reactions beside the fix's.

Each oracle starts real served peers on loopback (`LocalPeers`), runs the flow the statement
shows, and stops them; a kill gets a pair of its own. The answers are the same every run, so each
process computes them once (`_once`): sealing and judging ask for them several times.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import numpy as np

from ...core import RouterLabError, Runtime
from ...core.remote import IROH_WAIT_S
from ...core.serving import LocalPeers, parse_fault
from .base import CheckFailure, Part, PredictSuite, choice

SOCKETS = ("client -> peer1 /session", "peer1 -> client /session", "client -> peer2 /session",
           "peer2 -> client /session", "peer1 -> peer2 /data")
ELEMENTS = 1 << 16


@contextmanager
def _pair(policy: str = "native") -> Iterator[Runtime]:
    with LocalPeers(2) as local, Runtime(peers=local.addresses, policy=policy) as rt:
        yield rt


def _once(oracle: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """`oracle`, run once per process and variant; each caller gets its own copy."""
    cached = cache(oracle)
    return lambda **params: dict(cached(**params))


def _ids(value: Any) -> list[int]:
    if not isinstance(value, list | tuple) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise CheckFailure("write a list of tensor ids (ints), e.g. [0, 2], or [] for none",
                           got=repr(value), hint=1)
    return sorted(value)


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise CheckFailure("write True or False", got=repr(value), hint=1)
    return value


def _seconds(value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
        raise CheckFailure("write a number of seconds", got=repr(value), hint=1)
    return float(value)


def _class_name(value: Any) -> str:
    if not isinstance(value, str) or not value.strip().isidentifier():
        raise CheckFailure('write an error class name, e.g. "DeadlockError"', got=repr(value),
                           hint=1)
    return value.strip()


_fate = choice("ok", "error", "panic")
_session = choice("alive", "ended")


def _fate_of(call: Callable[[], Any]) -> str:
    """What a call did: "ok", "panic" (a replayed Burn panic) or "error" (any other)."""
    from ...core import BurnPanic

    try:
        call()
    except BurnPanic:
        return "panic"
    except RouterLabError:
        return "error"
    return "ok"


# --- peers-1: the bytes cross peer to peer ------------------------------------------------------


def _bytes_answers(others: int = 0, after: int = 0) -> dict[str, Any]:
    """peers-1's move, with `others` tensors made on peer1/cpu:0 before x and `after` after it."""
    with _pair() as rt:
        for _ in range(others):
            rt.tensor([0.0], device="peer1/cpu:0", dtype="f32")
        x = rt.tensor(np.zeros(ELEMENTS, dtype=np.float32), device="peer1/cpu:0")
        for _ in range(after):
            rt.tensor([0.0], device="peer1/cpu:0", dtype="f32")
        sent = {row[0]: row[2] for row in rt.server.wire_view().rows}  # type: ignore[attr-defined]
        rt.to_device(x, "peer2/cpu:0")
        now = {row[0]: row[2] for row in rt.server.wire_view().rows}  # type: ignore[attr-defined]
        crossed = {k: v - sent.get(k, 0) for k, v in now.items()}
        return {"DATA_SOCKET": max(crossed, key=crossed.__getitem__),
                "CLIENT_SEES_BYTES": any(v >= 4 * ELEMENTS for k, v in crossed.items()
                                         if "client" in k),
                "SOURCE_AFTER": rt.handle_ids("peer1/cpu:0")}


bytes_cross = PredictSuite(
    "peers-1",
    parts=[
        Part("DATA_SOCKET", "the socket that carries the tensor's bytes", choice(*SOCKETS)),
        Part("CLIENT_SEES_BYTES", "whether the client's sockets carry the bytes", _flag),
        Part("SOURCE_AFTER", "the ids left on peer1/cpu:0 after the move", _ids),
    ],
    oracle=_once(_bytes_answers),
    mistakes={
        "sent the bytes through the client": lambda others, after: {
            "DATA_SOCKET": "peer1 -> client /session", "CLIENT_SEES_BYTES": True},
        "thought the source keeps a moved tensor": lambda others, after: {
            "SOURCE_AFTER": list(range(others + after + 1))},
    },
)


# --- peers-2: a server killed mid-transfer -------------------------------------------------------


def _killed(peers: dict[str, str], policy: str, others: int = 0, ys: int = 1
            ) -> tuple[str, list[int], list[int], str]:
    """Kill peer1 while peer2 downloads x from it (`others` more tensors on peer1, `ys` on
    peer2): the move's fate, peer2/cpu:0's ids after it, the ids the error names lost, and what
    reading the moved tensor then does."""
    with Runtime(peers=peers, policy=policy) as rt:
        x = rt.tensor([[1.0, 2.0], [3.0, 4.0]], device="peer1/cpu:0", dtype="f32")
        for _ in range(ys):
            rt.tensor([10.0, 20.0], device="peer2/cpu:0", dtype="f32")
        for _ in range(others):
            rt.tensor([5.0], device="peer1/cpu:0", dtype="f32")
        rt.server.inject(parse_fault("step=1,kind=kill,peer=peer1,when=during"))  # type: ignore[attr-defined]
        moved: list[Any] = []
        lost: list[int] = []
        try:
            moved.append(rt.to_device(x, "peer2/cpu:0"))
            fate = "ok"
        except RouterLabError as error:
            fate = type(error).__name__
            lost = [int(str(row[0])) for row in rt.registry("peer1/cpu:0").rows]
        ids = rt.handle_ids("peer2/cpu:0")
        read = _fate_of(lambda: rt.read(moved[0])) if moved else "error"
        return fate, ids, lost, read


def _kill_answers(others: int = 0, ys: int = 1) -> dict[str, Any]:
    with LocalPeers(4) as local:  # two pairs, started at once: each run kills its own peer1
        pairs = [dict(zip(("peer1", "peer2"), list(local.addresses.values())[i:i + 2],
                          strict=True)) for i in (0, 2)]
        fix_error, fix_ids, fix_lost, _ = _killed(pairs[0], "native", others, ys)
        legacy_step, _, _, legacy_read = _killed(pairs[1], "legacy", others, ys)
    return {"FIX_ERROR": fix_error, "FIX_PEER2_IDS": fix_ids, "FIX_LOST": fix_lost,
            "LEGACY_STEP": "ok" if legacy_step == "ok" else "error",
            "LEGACY_FIRST_READ": legacy_read}


killed = PredictSuite(
    "peers-2",
    parts=[
        Part("FIX_ERROR", "the error RouterLab's fix raises at the move", _class_name),
        Part("FIX_PEER2_IDS", "peer2/cpu:0's ids after the failed move", _ids),
        Part("FIX_LOST", "the ids named lost with peer1", _ids),
        Part("LEGACY_STEP", "what the move does under legacy (Burn)", _fate),
        Part("LEGACY_FIRST_READ", "what the first read of the moved tensor does under legacy",
             _fate),
    ],
    oracle=_once(_kill_answers),
    mistakes={
        "thought the fix keeps the half-moved tensor": lambda others, ys: {
            "FIX_PEER2_IDS": list(range(1, ys + 2))},
        "thought Burn's move fails at once": lambda others, ys: {"LEGACY_STEP": "error"},
    },
)


# --- peers-3: a late message ----------------------------------------------------------------------


def _late(peers: dict[str, str], policy: str, delay: float) -> tuple[bool, bool]:
    """Delay peer1's ExposeTensorRemote by `delay` s over Iroh: whether peer1 still holds x,
    and whether peer2 holds the moved tensor, afterwards."""
    with Runtime(peers=peers, policy=policy) as rt:
        x = rt.tensor([1.0, 2.0], device="peer1/cpu:0", dtype="f32")
        spec = f"step=1,kind=delay,peer=peer1,message=ExposeTensorRemote,seconds={delay}"
        rt.server.inject(parse_fault(spec))  # type: ignore[attr-defined]
        try:
            rt.to_device(x, "peer2/cpu:0")
        except RouterLabError:
            pass
        return rt.handle_ids("peer1/cpu:0") != [], rt.handle_ids("peer2/cpu:0") != []


def _late_answers() -> dict[str, Any]:
    too_late = 2 * IROH_WAIT_S
    with LocalPeers(2) as local:
        return {"WAIT_S": IROH_WAIT_S,
                "FIX_SOURCE_KEEPS": _late(local.addresses, "native", too_late)[0],
                "LEGACY_TARGET_HAS": _late(local.addresses, "legacy", too_late)[1]}


late = PredictSuite(
    "peers-3",
    parts=[
        Part("WAIT_S", "the longest delay a served Iroh move survives, in seconds", _seconds,
             places=3, numeric=True),
        Part("FIX_SOURCE_KEEPS", "whether peer1 keeps x after a too-late expose (fix)", _flag),
        Part("LEGACY_TARGET_HAS", "whether peer2 holds the moved tensor after it (legacy)",
             _flag),
    ],
    oracle=_once(_late_answers),
)


# --- faults-1: Burn or the fix? -------------------------------------------------------------------


def _oom(rt: Runtime) -> str:
    x = rt.tensor(np.zeros(64, dtype=np.float32), device="peer1/cpu:0")
    rt.tensor([0.0], device="peer2/cpu:0", dtype="f32")
    rt.server.inject(parse_fault("step=1,kind=oom,device=peer2/cpu:0,limit=128"))  # type: ignore[attr-defined]
    _fate_of(lambda: rt.to_device(x, "peer2/cpu:0"))
    return "ended" if rt.session("peer2/cpu:0").ended else "alive"


def _drop(rt: Runtime) -> str:
    x = rt.tensor([1.0], device="peer1/cpu:0", dtype="f32")
    spec = "step=1,kind=drop,peer=peer2,message=RegisterTensorRemote"
    rt.server.inject(parse_fault(spec))  # type: ignore[attr-defined]
    return _fate_of(lambda: rt.to_device(x, "peer2/cpu:1"))


def _restart(rt: Runtime) -> str:
    x = rt.tensor([1.0], device="peer1/cpu:0", dtype="f32")
    rt.server.inject(parse_fault("step=1,kind=restart,peer=peer1"))  # type: ignore[attr-defined]
    try:
        rt.read(x)
    except RouterLabError as error:
        return type(error).__name__
    return "none"


def _burn_or_fix_answers() -> dict[str, Any]:
    with LocalPeers(2) as local:
        answers = {}
        for policy, name in (("legacy", "LEGACY"), ("native", "FIX")):
            with Runtime(peers=local.addresses, policy=policy) as rt:
                answers[f"OOM_{name}_SESSION"] = _oom(rt)
            with Runtime(peers=local.addresses, policy=policy) as rt:
                answers[f"DROP_{name}_STEP"] = _drop(rt)
            with Runtime(peers=local.addresses, policy=policy) as rt:
                answers[f"RESTART_{name}_ERROR"] = _restart(rt)
    return answers


burn_or_fix = PredictSuite(
    "faults-1",
    parts=[
        Part("OOM_LEGACY_SESSION", "peer2/cpu:0's session after an oom under legacy", _session),
        Part("OOM_FIX_SESSION", "peer2/cpu:0's session after an oom under the fix", _session),
        Part("DROP_LEGACY_STEP", "the move whose register was dropped, under legacy", _fate),
        Part("DROP_FIX_STEP", "the move whose register was dropped, under the fix", _fate),
        Part("RESTART_LEGACY_ERROR", "reading a tensor of a restarted peer, under legacy",
             _class_name),
        Part("RESTART_FIX_ERROR", "reading a tensor of a restarted peer, under the fix",
             _class_name),
    ],
    oracle=_once(_burn_or_fix_answers),
)
