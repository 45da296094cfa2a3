"""Checks of the quantized-transfer exercises: the guard that decides before anything is
submitted, the native fix (Fix A), why recalibrating drifts (Fix B2), and choosing a policy
(crates/burn-router/src/interpreter.rs:88-127; docs/transfers.md).

fix-1 compares the student's two predicates with the model's, and puts them in front of a real
runtime the way the client-side guard is (a move they refuse is never submitted). fix-2 plugs the
student's `get_tensor` and `q_to_device` into a real runtime through its `quantized` extension
(`Runtime(devices, quantized=...)`, the constructor argument; no core module is touched), then
moves quantized tensors between two devices of one peer; the same moves on the unplugged runtime
are the model's answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core import (
    DType,
    HandleKind,
    Kind,
    Policy,
    Profile,
    QFloat,
    RouterLabError,
    Runtime,
    TensorId,
    TensorIr,
    make_backend,
)
from ...core.fix import QuantizedTransfers, record_arrival
from ...core.fix import can_move_to_device as model_can_move
from ...core.fix import is_quantized_handle as model_is_quantized
from ...core.fix import q_to_device as model_q_to_device
from ...core.quant import parse_scheme, quantize, quantize_dynamic
from ...teaching.measure import measure_transfer
from .base import (
    CheckFailure,
    Observation,
    Part,
    PredictSuite,
    Subject,
    Suite,
    choice,
    choices,
)
from .forms import floats, number, whole

F32 = np.float32
POLICIES = tuple(p.value for p in Policy)
_PLAIN = {"f32": [1.5, -2.0], "i32": [3, -4], "u8": [5, 6], "bool": [True, False]}
_QUANTIZED = QFloat(parse_scheme("q8s:store=native"))


def _values(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=n).astype(F32)


# --- fix-1: the guard's two predicates ----------------------------------------------------------

guard = Suite("fix-1")
guard.model(is_quantized_handle=model_is_quantized, can_move_to_device=model_can_move)


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


def _told(sub: Subject, name: str) -> Callable[..., Any]:
    """The learner's predicate, with the usual slip said plainly: `kind_of` classifies a dtype
    (it asks `dtype.is_float()`…), so handing it a HandleKind or a Kind ends in an
    AttributeError deep inside RouterLab, which on its own tells the learner nothing."""
    function = sub.function(name)

    def call(*args: Any) -> Any:
        try:
            return function(*args)
        except AttributeError as error:
            given = type(args[0]).__name__ if args else ""
            if given not in ("HandleKind", "Kind") or "is_" not in str(error):
                raise
            hint = ("a HandleKind carries its Kind in `.kind`" if given == "HandleKind" else
                    "a Kind is already the answer's form")
            raise CheckFailure(
                f"`{name}` was given a {given}, and your code handed it to `kind_of`, which "
                f"classifies a dtype only (it asks `dtype.is_float()`…, which a {given} does not "
                f"have): {hint}; call `kind_of` only for a dtype", got=f"{given}: {error}",
                hint=2) from None

    return call


def _yes_no(value: Any, call: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise CheckFailure(f"{call} must return True or False", got=repr(value), hint=1)
    return bool(value)


@guard.visible("is_quantized_handle: a quantized HandleKind, Kind or dtype, and nothing else",
               hint=1)
def _(sub: Subject) -> Observation:
    student = _told(sub, "is_quantized_handle")
    return [(f"is_quantized_handle({label})",
             _yes_no(student(kind), f"is_quantized_handle({label})")) for label, kind in _kinds()]


@guard.visible("can_move_to_device: a quantized tensor moves under native, dequantize and "
               "requantize only", hint=2)
def _(sub: Subject) -> Observation:
    student = _told(sub, "can_move_to_device")
    return [(f"can_move_to_device(QFloat(q8s), {policy!r})",
             _yes_no(student(_QUANTIZED, policy), "can_move_to_device")) for policy in POLICIES]


@guard.visible("can_move_to_device: plain tensors move under every policy, except a uint "
               "under legacy (Burn's uint walls)", hint=2)
def _(sub: Subject) -> Observation:
    student = _told(sub, "can_move_to_device")
    return [(f"can_move_to_device({dtype}, {policy!r})",
             _yes_no(student(dtype, policy), "can_move_to_device"))
            for dtype in (DType.F32, DType.I32, DType.U8, DType.BOOL) for policy in POLICIES]


@guard.visible("in front of the router: `reject` refuses a quantized move on the client, before "
               "anything is submitted, and lets an f32 move", hint=2)
def _(sub: Subject) -> Observation:
    is_quantized = _told(sub, "is_quantized_handle")
    rt = Runtime(["cpu:0", "cpu:1"])
    for _ in range(sub.param("before")):
        rt.tensor([0.0], "cpu:0", "f32")
    q = rt.quantize(rt.tensor(_values(8, 1), "cpu:0", "f32"), "q8s")
    plain = rt.tensor([1.0, 2.0], "cpu:0", "f32")
    seen: Observation = []
    for name, tensor in (("the quantized tensor", q), ("the f32 tensor", plain)):
        mark = len(rt.trace)
        refused = _yes_no(is_quantized(HandleKind(Kind.QUANTIZED if tensor is q else Kind.FLOAT,
                                                  None)), "is_quantized_handle")
        if not refused:
            rt.to_device(tensor, "cpu:1", policy="native")
        seen.append((f"policy 'reject' with this guard, moving {name}: refused on the client?, "
                     "tasks submitted, registries (cpu:0, cpu:1)",
                     [refused, len([e for e in rt.trace.read(mark) if e.kind == "op"]),
                      rt.handle_ids("cpu:0"), rt.handle_ids("cpu:1")]))
    return seen


@guard.hidden("can_move_to_device agrees with what the router does, for every dtype and policy")
def _(sub: Subject) -> Observation:
    kinds = {"f32": DType.F32, "i32": DType.I32, "u8": DType.U8, "bool": DType.BOOL,
             "qfloat": _QUANTIZED}
    seen: Observation = []
    for name, dtype in kinds.items():
        for policy in POLICIES:
            answer = (_moves(name, policy) if sub.is_model else
                      _yes_no(_told(sub, "can_move_to_device")(dtype, policy),
                              "can_move_to_device"))
            seen.append((f"a {name} tensor under policy {policy!r}: does it move?", answer))
    return seen


@guard.hidden("every kind, in every form, under every policy", hint=2)
def _(sub: Subject) -> Observation:
    is_q, can = _told(sub, "is_quantized_handle"), _told(sub, "can_move_to_device")
    seen: Observation = []
    for label, kind in _kinds():
        seen.append((f"is_quantized_handle({label})", _yes_no(is_q(kind), "is_quantized_handle")))
        for policy in POLICIES:
            seen.append((f"can_move_to_device({label}, {policy!r})",
                         _yes_no(can(kind, policy), "can_move_to_device")))
    return seen


# --- fix-2: the native q_to_device ----------------------------------------------------------------

native = Suite("fix-2")
native.model(q_to_device=model_q_to_device)


def _arms(sub: Subject) -> QuantizedTransfers | None:
    """The quantized extension with the student's two native arms: their `get_tensor` on the
    source, their `q_to_device` where the native carrier moves a primitive (None: the model's)."""
    if sub.is_model:
        return None
    student_q_to_device = sub.function("q_to_device")

    def place(interp: Any, id: TensorId, q: Any) -> Any:
        moved = student_q_to_device(interp.backend, q)
        interp.handles.register(id, moved)
        return moved

    return native_arms(sub.function("get_tensor"), place)


Place = Callable[[Any, TensorId, Any], Any]
"""The target side of a native move: register the arrived primitive under the id on the
interpreter's device and return it."""


def native_arms(get_tensor: Callable[..., HandleKind] | None,
                place: Place | None) -> QuantizedTransfers:
    """The quantized extension whose native arms are a learner's (None: the model's): `get_tensor`
    takes the source's handle, `place` registers the arrival; every other policy is the model's.
    The copy is traced as the model's own arm traces it."""

    class PluggedArms(QuantizedTransfers):
        def get_tensor(self, interp: Any, ir: TensorIr, policy: Policy) -> HandleKind:
            if policy is not Policy.NATIVE or get_tensor is None:
                return super().get_tensor(interp, ir, policy)
            return get_tensor(interp.handles, ir)

        def register_tensor_to_device(self, interp: Any, id: TensorId, tensor: HandleKind,
                                      policy: Policy) -> None:
            if policy is not Policy.NATIVE or place is None:
                return super().register_tensor_to_device(interp, id, tensor, policy)
            before = interp.backend.bytes_copied
            moved = place(interp, id, tensor.primitive)
            if moved is None:
                raise CheckFailure(f"nothing was registered under id {int(id)} on "
                                   f"{interp.device}: the arriving tensor must be registered",
                                   hint=2)
            record_arrival(interp, id, moved, tensor.primitive.dtype,
                           interp.backend.bytes_copied - before,
                           f"native: {tensor.primitive.device} -> {interp.device}")
            return None

    return PluggedArms()


def _native_move(sub: Subject, scheme: str, profile: str, shared: bool,
                 seed: int, rows: int = 2, before: int = 0) -> dict[str, Any]:
    """Quantize a `rows` x 16 tensor on cpu:0 (after `before` others), move it natively to
    cpu:1 (same peer, same profile) and observe."""
    a, b = f"cpu:0@{profile}", f"cpu:1@{profile}"
    rt = Runtime([a, b], quantized=_arms(sub))
    for _ in range(before):
        rt.tensor([0.0], a, "f32")
    q = rt.quantize(rt.tensor(_values(16 * rows, seed).reshape(rows, 16), a, "f32"), scheme)
    keep = rt.clone(q) if shared else None
    source = rt.read_quantized(rt.clone(q))
    before = rt.bytes_copied()
    moved = rt.to_device(q, b, policy="native")
    copied = rt.bytes_copied() - before
    primitive = rt.handle(b, moved.id)
    arrived = rt.read_quantized(moved)
    source_prim = rt.handle(a, keep.id) if keep else None
    return {"bit_equal": arrived.bit_equal(source), "bytes": copied,
            "device": str(getattr(primitive, "device", None)),
            "ids": [rt.handle_ids(a), rt.handle_ids(b)],
            "shares": source_prim is not None and primitive is not None
            and _shares_memory(primitive, source_prim)}


def _shares_memory(one: Any, other: Any) -> bool:
    """Whether two quantized primitives share their values' or their scales' memory."""
    return bool(np.shares_memory(one.tensor.values, other.tensor.values)
                or np.shares_memory(one.tensor.scales, other.tensor.scales))


_NATIVE_MEANING = {"bit_equal": "values, scales, global and scheme arrive bit-identical",
                   "device": "the device of the registered primitive",
                   "ids": "ids on (cpu:0, cpu:1) afterwards", "bytes": "bytes copied by the move",
                   "shares": "the arrived tensor shares memory with the source's"}


def _observe_native(sub: Subject, scheme: str, profile: str = "flex", shared: bool = False,
                    keys: tuple[str, ...] = ("bit_equal", "device", "ids"),
                    own: bool = True) -> Observation:
    """A visible check's move (`own`: of the student's own tensor, its rows and the tensors
    made before it from their variant)."""
    rows, before = (sub.param("rows"), sub.param("before")) if own else (2, 0)
    seen = _native_move(sub, scheme, profile, shared, 7, rows, before)
    what = f"{scheme} on {profile}, {'shared' if shared else 'unique'}, {rows} x 16"
    return [(f"{what}: {_NATIVE_MEANING[key]}", seen[key]) for key in keys]


@native.visible("a Q8S tensor moves cpu:0 -> cpu:1 natively, bit-identical", hint=2)
def _(sub: Subject) -> Observation:
    return _observe_native(sub, "q8s")


@native.visible("a two-level scheme arrives with its block scales and its global scale", hint=2)
def _(sub: Subject) -> Observation:
    return _observe_native(sub, "q8s:block=4:scale=ue4m3:global=f32")


@native.visible("a unique tensor moves, a shared one is copied (get_tensor keeps the status)",
                hint=2)
def _(sub: Subject) -> Observation:
    return _observe_native(sub, "q4s:block=8", shared=True)


@native.visible("the scales travel and are counted: bytes = values + scales + global "
                "(CubeCL at Burn 2c06be3 left the scales behind, PR #5678)", hint=2)
def _(sub: Subject) -> Observation:
    return (_observe_native(sub, "q8s:block=4:scale=ue4m3:global=f32", keys=("bytes",))
            + _observe_native(sub, "q4s:block=8:scale=f16", profile="cubecl",
                              keys=("bit_equal", "bytes")))


@native.visible("q_to_device onto the device the tensor is on returns it unchanged", hint=2)
def _(sub: Subject) -> Observation:
    rt = Runtime(["cpu:0"])
    q = rt.quantize(rt.tensor(_values(8, 3), "cpu:0", "f32"), "q8s")
    primitive = rt.handle("cpu:0", q.id)
    backend = make_backend(primitive.device)  # a backend of the device the tensor is on
    same = sub.function("q_to_device")(backend, primitive) is primitive
    return [("q_to_device(backend, q) with q already there returns q itself (Fusion's and "
             "Burn's same-device shortcut)", same)]


@native.hidden("seeded random schemes on the flex, ndarray and cubecl profiles")
def _(sub: Subject) -> Observation:
    rng = random.Random(5678)
    values = {"flex": ("q8s", "q8f", "q4s", "q4f", "q2s", "q2f"),
              "ndarray": ("q8s", "q8f", "q4s", "q2f"), "cubecl": ("q8s", "q4s", "q2s")}
    seen: Observation = []
    for case in range(18):
        profile = rng.choice(sorted(values))
        value = rng.choice(values[profile])
        level = rng.choice(("", ":block=16", ":block=16:scale=f16",
                            ":block=16:scale=ue4m3:global=f32"))
        scheme = value + level + (":store=packed-u32" if profile == "cubecl" else "")
        shared = rng.random() < 0.3
        seen.append((f"hidden case {case}: a {'shared' if shared else 'unique'} {scheme} tensor "
                     f"on {profile}", _native_move(sub, scheme, profile, shared, case)))
    return seen


@native.hidden("the arrived tensor owns its values and its scales", hint=2)
def _(sub: Subject) -> Observation:
    return _observe_native(sub, "q8s:block=4:scale=f16", shared=True, keys=("shares",),
                           own=False)


# --- fix-3: drift of recalibration over hops --------------------------------------------------


def _drift_answers(lead: float = 0.9) -> dict[str, Any]:
    """Hop tensors through dequantize -> quantize_dynamic (Fix B2) and through a static
    requantize with the carried scales (Fix B1), on the flex profile, and observe: the small
    tensor starts with -`lead`."""
    x = np.array([-lead, 0.5, 0.2], dtype=F32)
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
             floats(4), places=3, numeric=True),
        Part("Q2F_LAST", "what x[0] dequantizes to after three recalibrating hops", number,
             places=3, numeric=True),
        Part("STATIC_LAST", "what x[0] dequantizes to after three static hops", number,
             places=3, numeric=True),
        Part("Q8S_CHANGED", "how many Q8S q values four recalibrating hops change", whole),
    ],
    oracle=_drift_answers,
    mistakes={
        "thought recalibrating keeps the scale": lambda lead: {
            "Q2F_SCALES": [_drift_answers(lead)["Q2F_SCALES"][0]] * 4,
            "Q2F_LAST": _drift_answers(lead)["STATIC_LAST"]},
        "thought a static hop drifts too": lambda lead: {
            "STATIC_LAST": _drift_answers(lead)["Q2F_LAST"]},
    },
)


# --- policy-1: choosing a policy -----------------------------------------------------------------


_policy = choice(*POLICIES)


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


_policies = choices(_policy, "policy names")


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


# --- fix-4: drift against bits and hops (an experiment) -----------------------------------------

DRIFT_VALUES = ("q8s", "q8f", "q4s", "q4f", "q2s", "q2f")
_value = choice(*DRIFT_VALUES)


def drift_experiment_data(outlier: float = -4.0, seed: int = 1) -> np.ndarray:
    """Notebook 06's tensor: 4096 N(0, 1) values whose first is the outlier (-4 there)."""
    x = np.random.default_rng(seed).standard_normal(4096).astype(F32)
    x[0] = outlier
    return x


def _drift_experiment_answers(outlier: int = -4, seed: int = 1) -> dict[str, Any]:
    """Eight recalibrating hops (requantize, cpu:0 <-> cpu:1) for every value type, on the
    variant's tensor."""
    x = drift_experiment_data(float(outlier), seed)
    scales, errors = {}, {}
    for value in DRIFT_VALUES:
        run = measure_transfer(x, value, policy="requantize", hops=8)
        scales[value] = [run.original_scales[0]] + [h.scales[0] for h in run.hops]
        errors[value] = run.hops[-1].max_abs_error_total
    q2f = scales["q2f"]
    return {"DRIFTING": sorted(v for v in DRIFT_VALUES if len(set(scales[v])) > 1),
            "Q2F_HOPS_TO_DOUBLE": next(k for k, s in enumerate(q2f) if s >= 2 * q2f[0]),
            "LARGEST_ERROR": max(DRIFT_VALUES, key=errors.__getitem__)}


_values_list = choices(_value, "value types")


drift_experiment = PredictSuite(
    "fix-4",
    parts=[
        Part("DRIFTING", "the value types whose scale changes over eight recalibrating hops",
             _values_list),
        Part("Q2F_HOPS_TO_DOUBLE", "the first hop after which Q2F's scale is at least twice "
             "the first", whole),
        Part("LARGEST_ERROR", "the value type with the largest error after eight hops", _value),
    ],
    oracle=_drift_experiment_answers,
    mistakes={
        "thought every type drifts": lambda outlier, seed: {"DRIFTING": list(DRIFT_VALUES)},
        "thought 2 bits drift least": lambda outlier, seed: {"LARGEST_ERROR": "q8f"},
    },
)
