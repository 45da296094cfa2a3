"""Checks of the quantized-transfer exercises (docs/burn.md, 7): the guard that decides before
anything is submitted, the native fix (Fix A), why recalibrating drifts (Fix B2), and choosing a
policy.

fix-1 installs the student's `is_quantized_handle` where the core's transfer guard calls it, then
moves tensors under each policy. fix-2 installs the student's `get_tensor` as the quantized arm of
every interpreter (through the runtime's `quantized` extension) and their `q_to_device` where the
native carrier calls it, then moves quantized tensors between two devices of one peer.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

import numpy as np

from routerlab.core.backend import HandleKind, Kind
from routerlab.core.dtypes import DType, QFloat
from routerlab.core.errors import RouterLabError, TransferRejected
from routerlab.core.fix import can_move_to_device as model_can_move
from routerlab.core.fix import is_quantized_handle as model_is_quantized
from routerlab.core.fix.arms import QuantizedTransfers
from routerlab.core.fix.qtensor import q_to_device as model_q_to_device
from routerlab.core.ir import TensorIr
from routerlab.core.policies import Policy
from routerlab.core.profiles import Profile
from routerlab.core.quant import parse_scheme, quantize, quantize_dynamic
from routerlab.core.runtime import Runtime
from routerlab.exercises.checks.base import (
    CheckFailure,
    Part,
    PredictSuite,
    Submission,
    Suite,
    expect_equal,
    installed,
    registered,
)

F32 = np.float32
POLICIES = tuple(p.value for p in Policy)
_PLAIN = {"f32": [1.5, -2.0], "i32": [3, -4], "u8": [5, 6], "bool": [True, False]}
_QUANTIZED = QFloat(parse_scheme("q8s:store=native"))


def _values(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=n).astype(F32)


# --- fix-1: the guard's two predicates ----------------------------------------------------------

guard = Suite("fix-1")


def _moves(dtype: str, policy: str) -> bool:
    """Whether the model's runtime moves a tensor of `dtype` cpu:0 -> cpu:1 under `policy`."""
    rt = Runtime(["cpu:0", "cpu:1"])
    if dtype == "qfloat":
        tensor = rt.quantize(rt.tensor(_values(8, 0), "cpu:0", "f32"), "q8s")
    else:
        tensor = rt.tensor(_PLAIN[dtype], "cpu:0", dtype)
    try:
        rt.to_device(tensor, "cpu:1", policy=policy)
    except RouterLabError:
        return False
    return True


def _kinds() -> list[tuple[str, Any]]:
    """The three shapes a kind comes in (a HandleKind, a Kind, a dtype), for every kind."""
    shapes: list[tuple[str, Any]] = []
    for kind in Kind:
        shapes += [(f"HandleKind({kind.name})", HandleKind(kind, None)),
                   (f"Kind.{kind.name}", kind)]
    shapes += [(str(d), d) for d in (DType.F32, DType.BF16, DType.I8, DType.U16, DType.BOOL)]
    return shapes + [("QFloat(q8s)", _QUANTIZED)]


@guard.visible("is_quantized_handle: a quantized HandleKind, Kind or dtype, and nothing else",
               hint=1)
def _(sub: Submission) -> None:
    student = sub.function("is_quantized_handle")
    for label, kind in _kinds():
        expect_equal(f"is_quantized_handle({label})", model_is_quantized(kind), student(kind))


@guard.visible("can_move_to_device: a quantized tensor moves under native, dequantize and "
               "requantize only", hint=2)
def _(sub: Submission) -> None:
    student = sub.function("can_move_to_device")
    for policy in POLICIES:
        expect_equal(f"can_move_to_device(QFloat(q8s), {policy!r})",
                     model_can_move(_QUANTIZED, policy), student(_QUANTIZED, policy))


@guard.visible("can_move_to_device: plain tensors move under every policy, except a uint "
               "under legacy (Burn's uint walls)", hint=2)
def _(sub: Submission) -> None:
    student = sub.function("can_move_to_device")
    for dtype in (DType.F32, DType.I32, DType.U8, DType.BOOL):
        for policy in POLICIES:
            expect_equal(f"can_move_to_device({dtype}, {policy!r})",
                         model_can_move(dtype, policy), student(dtype, policy))


@guard.visible("in the router: with your guard, `reject` refuses a quantized move on the client, "
               "before anything is submitted", hint=2)
def _(sub: Submission) -> None:
    with installed(model_is_quantized, sub.function("is_quantized_handle")):
        rt = Runtime(["cpu:0", "cpu:1"])
        q = rt.quantize(rt.tensor(_values(8, 1), "cpu:0", "f32"), "q8s")
        mark = len(rt.trace)
        try:
            rt.to_device(q, "cpu:1", policy="reject")
        except TransferRejected as refused:
            if "refused (policy 'reject')" not in str(refused):
                raise CheckFailure("the move was refused, but by a server session, after it was "
                                   "submitted: the guard did not see a quantized tensor",
                                   got=str(refused)[:160], hint=2) from None
        else:
            raise CheckFailure("moving a quantized tensor under policy 'reject' must raise "
                               "TransferRejected", got="the tensor moved", hint=2)
        expect_equal("registries after the refusal (nothing consumed)",
                     ([int(q.id)], []), (rt.handle_ids("cpu:0"), rt.handle_ids("cpu:1")))
        expect_equal("tasks submitted by the refused move", [],
                     [e.kind for e in rt.trace.read(mark) if e.kind == "op"])
        plain = rt.to_device(rt.tensor([1.0, 2.0], "cpu:0", "f32"), "cpu:1", policy="reject")
        expect_equal("an f32 tensor under policy 'reject' still moves", [1.0, 2.0],
                     rt.read(plain).tolist())


@guard.hidden("your can_move_to_device agrees with what the router does, for every dtype and "
              "policy")
def _(sub: Submission) -> None:
    student = sub.function("can_move_to_device")
    kinds = {"f32": DType.F32, "i32": DType.I32, "u8": DType.U8, "bool": DType.BOOL,
             "qfloat": _QUANTIZED}
    for name, dtype in kinds.items():
        for policy in POLICIES:
            if bool(student(dtype, policy)) != _moves(name, policy):
                raise CheckFailure(f"for a {name} tensor under policy {policy!r}, your answer "
                                   "is not what the router does", got=repr(student(dtype, policy)),
                                   hint=2)


@guard.hidden("every kind, in every form, under every policy, against the model")
def _(sub: Submission) -> None:
    is_q, can = sub.function("is_quantized_handle"), sub.function("can_move_to_device")
    for label, kind in _kinds():
        if bool(is_q(kind)) != model_is_quantized(kind):
            raise CheckFailure(f"is_quantized_handle({label}) differs from the model",
                               got=repr(is_q(kind)), hint=1)
        for policy in POLICIES:
            if bool(can(kind, policy)) != model_can_move(kind, policy):
                raise CheckFailure(f"can_move_to_device({label}, {policy!r}) differs from the "
                                   "model", got=repr(can(kind, policy)), hint=2)


# --- fix-2: the native q_to_device ----------------------------------------------------------------

native = Suite("fix-2")


@contextlib.contextmanager
def student_native_arms(sub: Submission) -> Iterator[QuantizedTransfers]:
    """The quantized extension with the student's two native arms: their `get_tensor` on the
    source, their `q_to_device` wherever the native carrier moves a primitive."""
    student_get = sub.function("get_tensor")

    class StudentArms(QuantizedTransfers):
        def get_tensor(self, interp: Any, ir: TensorIr, policy: Policy) -> HandleKind:
            if policy is not Policy.NATIVE:
                return super().get_tensor(interp, ir, policy)
            return student_get(interp.handles, ir)

    with installed(model_q_to_device, sub.function("q_to_device")):
        yield StudentArms()


def _native_move(scheme: str, profile: str, shared: bool, seed: int,
                 arms: QuantizedTransfers | None = None) -> dict[str, Any]:
    """Quantize on cpu:0, move natively to cpu:1 (same peer, same profile) and observe."""
    a, b = f"cpu:0@{profile}", f"cpu:1@{profile}"
    rt = Runtime([a, b], quantized=arms)
    q = rt.quantize(rt.tensor(_values(32, seed).reshape(2, 16), a, "f32"), scheme)
    keep = rt.clone(q) if shared else None
    source = rt.read_quantized(rt.clone(q))
    before = rt.bytes_copied()
    moved = rt.to_device(q, b, policy="native")
    copied = rt.bytes_copied() - before
    primitive = rt.session(b).interpreter.handles.get_handle_ref(moved.id)
    arrived = rt.read_quantized(moved)
    source_prim = rt.session(a).interpreter.handles.get_handle_ref(keep.id) if keep else None
    return {"bit_equal": arrived.bit_equal(source), "bytes": copied,
            "device": str(getattr(primitive, "device", None)),
            "ids": (rt.handle_ids(a), rt.handle_ids(b)),
            "shares": source_prim is not None and _shares_memory(
                registered(primitive, f"on {b} under the moved tensor's id"), source_prim)}


def _shares_memory(one: Any, other: Any) -> bool:
    """Whether two quantized primitives share their values' or their scales' memory."""
    return (np.shares_memory(one.tensor.values, other.tensor.values)
            or np.shares_memory(one.tensor.scales, other.tensor.scales))


def _expect_native(sub: Submission, scheme: str, profile: str = "flex",
                   shared: bool = False, keys: tuple[str, ...] = ("bit_equal", "device", "ids"),
                   ) -> None:
    want = _native_move(scheme, profile, shared, 7)
    with student_native_arms(sub) as arms:
        got = _native_move(scheme, profile, shared, 7, arms)
    meaning = {"bit_equal": "values, scales, global and scheme arrive bit-identical",
               "device": "the device of the registered primitive",
               "ids": "ids on (cpu:0, cpu:1) afterwards", "bytes": "bytes copied by the move",
               "shares": "the arrived tensor shares memory with the source's"}
    for key in keys:
        expect_equal(f"{scheme} on {profile}, {'shared' if shared else 'unique'}: {meaning[key]}",
                     want[key], got[key], hint=2)


@native.visible("a Q8S tensor moves cpu:0 -> cpu:1 natively, bit-identical", hint=1)
def _(sub: Submission) -> None:
    _expect_native(sub, "q8s")


@native.visible("a two-level scheme arrives with its block scales and its global scale", hint=2)
def _(sub: Submission) -> None:
    _expect_native(sub, "q8s:block=4:scale=ue4m3:global=f32")


@native.visible("a unique tensor moves, a shared one is copied (get_tensor keeps the status)",
                hint=2)
def _(sub: Submission) -> None:
    _expect_native(sub, "q4s:block=8", shared=True)


@native.visible("the scales travel and are counted: bytes = values + scales + global "
                "(CubeCL at Burn 2c06be3 left the scales behind, PR #5678)", hint=3)
def _(sub: Submission) -> None:
    _expect_native(sub, "q8s:block=4:scale=ue4m3:global=f32", keys=("bytes",))
    _expect_native(sub, "q4s:block=8:scale=f16", profile="cubecl", keys=("bit_equal", "bytes"))


@native.visible("q_to_device onto the device the tensor is on returns it unchanged", hint=1)
def _(sub: Submission) -> None:
    rt = Runtime(["cpu:0"])
    q = rt.quantize(rt.tensor(_values(8, 3), "cpu:0", "f32"), "q8s")
    interp = rt.session("cpu:0").interpreter
    primitive = interp.handles.get_handle_ref(q.id)
    if sub.function("q_to_device")(interp.backend, primitive) is not primitive:
        raise CheckFailure("q_to_device(backend, q) with q already on the backend's device must "
                           "return q itself (Fusion's and Burn's same-device shortcut)", hint=1)


@native.hidden("seeded random schemes on the flex, ndarray and cubecl profiles, against the model")
def _(sub: Submission) -> None:
    rng = random.Random(5678)
    values = {"flex": ("q8s", "q8f", "q4s", "q4f", "q2s", "q2f"),
              "ndarray": ("q8s", "q8f", "q4s", "q2f"), "cubecl": ("q8s", "q4s", "q2s")}
    for case in range(18):
        profile = rng.choice(sorted(values))
        value = rng.choice(values[profile])
        level = rng.choice(("", ":block=16", ":block=16:scale=f16",
                            ":block=16:scale=ue4m3:global=f32"))
        scheme = value + level + (":store=packed-u32" if profile == "cubecl" else "")
        shared = rng.random() < 0.3
        want = _native_move(scheme, profile, shared, case)
        with student_native_arms(sub) as arms:
            got = _native_move(scheme, profile, shared, case, arms)
        differs = sorted(k for k in want if want[k] != got[k])
        if differs:
            raise CheckFailure(f"hidden case {case}: a {'shared' if shared else 'unique'} "
                               f"{scheme} tensor on {profile} differs in: {', '.join(differs)}",
                               got=repr({k: got[k] for k in differs}), hint=2)


@native.hidden("the arrived tensor owns its values and its scales")
def _(sub: Submission) -> None:
    _expect_native(sub, "q8s:block=4:scale=f16", shared=True, keys=("shares",))


# --- fix-3: drift of recalibration over hops --------------------------------------------------


def _floats(count: int) -> Any:
    def form(value: Any) -> list[float]:
        if not isinstance(value, list | tuple) or len(value) != count or not all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            raise CheckFailure(f"write a list of {count} numbers (3 decimals or more)",
                               got=repr(value), hint=1)
        return [float(v) for v in value]

    return form


def _number(value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise CheckFailure("write one number (3 decimals or more)", got=repr(value), hint=1)
    return float(value)


def _whole(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise CheckFailure("write a whole number >= 0", got=repr(value), hint=1)
    return value


def _drift_answers() -> dict[str, Any]:
    """Hop tensors through dequantize -> quantize_dynamic (Fix B2) and through a static
    requantize with the carried scales (Fix B1), on the flex profile, and observe."""
    x = np.array([-0.9, 0.5, 0.2], dtype=F32)
    first = tensor = quantize_dynamic(x, "q2f", profile=Profile.FLEX)
    scales = [float(tensor.scales_f32().reshape(-1)[0])]
    for _ in range(3):
        tensor = quantize_dynamic(tensor.dequantize(Profile.FLEX), "q2f", profile=Profile.FLEX)
        scales.append(float(tensor.scales_f32().reshape(-1)[0]))
    last = float(tensor.dequantize(Profile.FLEX)[0])
    static = first
    for _ in range(3):
        static = quantize(static.dequantize(Profile.FLEX), "q2f", first.scales_f32().reshape(-1),
                          profile=Profile.FLEX)
    normal = np.random.default_rng(0).normal(size=4096).astype(F32)
    q8s = start = quantize_dynamic(normal, "q8s", profile=Profile.FLEX)
    for _ in range(4):
        q8s = quantize_dynamic(q8s.dequantize(Profile.FLEX), "q8s", profile=Profile.FLEX)
    return {"Q2F_SCALES": scales, "Q2F_LAST": last,
            "STATIC_LAST": float(static.dequantize(Profile.FLEX)[0]),
            "Q8S_CHANGED": int((q8s.q() != start.q()).sum())}


drift = PredictSuite(
    "fix-3",
    parts=[
        Part("Q2F_SCALES", "the Q2F scale after the first quantize and after each hop",
             _floats(4), places=3),
        Part("Q2F_LAST", "what -0.9 dequantizes to after three recalibrating hops", _number,
             places=3),
        Part("STATIC_LAST", "what -0.9 dequantizes to after three static hops", _number,
             places=3),
        Part("Q8S_CHANGED", "how many Q8S q values four recalibrating hops change", _whole),
    ],
    oracle=_drift_answers,
)


# --- policy-1: choosing a policy -----------------------------------------------------------------


def _policy(value: Any) -> str:
    if value not in POLICIES:
        raise CheckFailure(f"answer one of {', '.join(repr(p) for p in POLICIES)}",
                           got=repr(value), hint=1)
    return str(value)


def _hops(policy: str) -> dict[str, Any]:
    """Move a Q2F tensor three hops under `policy` and observe: did it move, is it bit-identical
    at the end, how many bytes the hops copied, and whether every session survived."""
    rt = Runtime(["cpu:0", "cpu:1"])
    q = rt.quantize(rt.tensor([[-0.9, 0.5, 0.2, 0.1]], "cpu:0", "f32"), "q2f")
    start = rt.read_quantized(rt.clone(q))
    before = rt.bytes_copied()
    try:
        for target in ("cpu:1", "cpu:0", "cpu:1"):
            q = rt.to_device(q, target, policy=policy)
        moved = True
    except RouterLabError:
        moved = False
    hops = rt.bytes_copied() - before  # before the read below, which copies bytes too
    alive = all(rt.session(d).ended is None for d in rt.devices)
    exact = moved and rt.read_quantized(q).bit_equal(start)
    return {"moved": moved, "exact": exact, "bytes": hops, "alive": alive}


def _policy_answers() -> dict[str, Any]:
    """Run every policy on policy-1's tensor and apply each scenario's criterion."""
    runs = {p: _hops(p) for p in POLICIES}
    moved = {p: r for p, r in runs.items() if r["moved"]}
    exact = {p: r["bytes"] for p, r in moved.items() if r["exact"]}
    return {
        "EXACT_CHEAPEST": min(exact, key=exact.__getitem__),
        "EXACT_WITHOUT_NATIVE_MOVE": min((p for p in exact if p != "native"),
                                         key=exact.__getitem__),
        "DRIFTS": sorted(p for p, r in moved.items() if not r["exact"]),
        "MOST_BYTES": max(moved, key=lambda p: moved[p]["bytes"]),
        "RAISES": sorted(p for p, r in runs.items() if not r["moved"]),
        "RAISES_SAFELY": sorted(p for p, r in runs.items() if not r["moved"] and r["alive"]),
    }


def _policies(value: Any) -> list[str]:
    if not isinstance(value, list | tuple | set):
        raise CheckFailure("write a list of policy names ([] for none)", got=repr(value), hint=1)
    return sorted(_policy(v) for v in value)


choose = PredictSuite(
    "policy-1",
    parts=[
        Part("EXACT_CHEAPEST", "the exact policy that moves the fewest bytes", _policy),
        Part("EXACT_WITHOUT_NATIVE_MOVE", "the exact policy when the backend has no native "
             "quantized move", _policy),
        Part("DRIFTS", "the policies whose tensor differs after three hops", _policies),
        Part("MOST_BYTES", "the moving policy that copies the most bytes", _policy),
        Part("RAISES", "the policies under which the move raises an error", _policies),
        Part("RAISES_SAFELY", "the raising policies after which every session is still alive",
             _policies),
    ],
    oracle=_policy_answers,
)
