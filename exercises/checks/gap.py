"""Checks of the quantized-transfer gap at Burn 2c06be3: which wall fires, and what a panic on
the server leaves behind (crates/burn-router/src/interpreter.rs:88-127,
crates/burn-remote/src/server/worker.rs; docs/burn.md#7-the-quantized-walls).

gap-1 is an implement exercise: the student's `burn_arm` is Burn's dispatch in `get_tensor`
(by burn-std's predicates, crates/burn-std/src/tensor/dtype.rs:78-95), put in a legacy runtime's
interpreter (`Runtime(interpreter=...)`): a dtype that falls through panics there, as in Burn.
gap-2 is a predict exercise: its oracle runs the model's `legacy` policy on a fresh runtime.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core import (
    BurnTodo,
    DType,
    HandleKind,
    Kind,
    QFloat,
    RouterLabError,
    Runtime,
    TensorInterpreter,
    TensorIr,
)
from ...core.quant import parse_scheme
from .base import CheckFailure, Observation, Part, PredictSuite, Subject, Suite, choice
from .forms import yes_no

_STATES = choice("alive", "panicked", "hung")


def _quantized(rt: Runtime, device: str = "cpu:0") -> Any:
    return rt.quantize(rt.tensor(np.ones(8), device=device, dtype="f32"), "q4s")


# --- gap-1: Burn's dispatch, and the wall it falls into ------------------------------------------

ARMS = ("Float", "Int", "Bool", "todo!")
"""What Burn 2c06be3's `get_tensor` does with a dtype: one of its three arms, or the `todo!()`
it falls through to (interpreter.rs:88-100)."""

dispatch = Suite("gap-1")


def model_burn_arm(dtype: Any) -> str:
    """The arm of `get_tensor`'s if-chain a dtype takes at Burn 2c06be3, by burn-std's
    predicates (crates/burn-std/src/tensor/dtype.rs:78-95)."""
    if dtype.is_float():
        return "Float"
    if dtype.is_int():
        return "Int"
    return "Bool" if dtype.is_bool() else "todo!"


dispatch.model(burn_arm=model_burn_arm)
_GET_TENSOR = "crates/burn-router/src/interpreter.rs:98"
"""Where Burn's fall-through panics (the model's own legacy interpreter says the same)."""
_DTYPES = ("f64", "f32", "flex32", "f16", "bf16", "i64", "i32", "i16", "i8", "u64", "u32", "u16",
           "u8", "bool")


def _arm(sub: Subject, dtype: Any) -> str:
    got = sub.function("burn_arm")(dtype)
    if got not in ARMS:
        raise CheckFailure(f"burn_arm({dtype}) must return one of "
                           f"{', '.join(repr(a) for a in ARMS)}", got=repr(got), hint=1)
    return str(got)


def _burn_interpreter(sub: Subject) -> type[TensorInterpreter] | None:
    """Burn's `get_tensor` with the student's dispatch: an arm builds the `HandleKind` of that
    kind, `todo!` panics as Burn does (None: the model's own legacy interpreter)."""
    if sub.is_model:
        return None
    kinds = {"Float": Kind.FLOAT, "Int": Kind.INT, "Bool": Kind.BOOL}

    class BurnInterpreter(TensorInterpreter):
        def get_tensor(self, tensor: TensorIr, request: Any = None) -> HandleKind:
            arm = _arm(sub, tensor.dtype)
            if arm == "todo!":
                raise BurnTodo(_GET_TENSOR, f"Local transfer of {tensor.dtype} tensors is not "
                                            "supported yet")
            return HandleKind(kinds[arm], self.handles.get_tensor_handle(tensor))

    return BurnInterpreter


def _signed_twin(unsigned: str) -> str:
    """The signed int of an unsigned int's width (`u8` -> `i8`)."""
    return "i" + unsigned[1:]


@dispatch.visible("your float, int and bool dtypes take their arms", hint=1)
def _(sub: Subject) -> Observation:
    return [(f"burn_arm({d})", _arm(sub, DType.parse(d)))
            for d in (sub.param("float"), sub.param("int"), "bool")]


@dispatch.visible("your unsigned int is not an int to burn-std: it falls through, its signed twin "
                  "does not", hint=2)
def _(sub: Subject) -> Observation:
    unsigned = sub.param("uint")
    return [(f"burn_arm({d})", _arm(sub, DType.parse(d)))
            for d in (unsigned, _signed_twin(unsigned))]


@dispatch.visible("your quantized dtypes are not floats to burn-std: they fall through", hint=2)
def _(sub: Subject) -> Observation:
    scheme = sub.param("scheme")
    return [(f"burn_arm(QFloat({s}))", _arm(sub, QFloat(parse_scheme(s))))
            for s in (scheme, f"{scheme}:block={sub.param('block')}")]


def _legacy_moves(sub: Subject) -> Observation:
    """A tensor of each of the variant's kinds moved cpu:0 -> cpu:1 under `legacy` through Burn's
    dispatch, each on a fresh runtime (a panic ends the source's session, as Burn's worker has
    no catch_unwind)."""
    plugged = _burn_interpreter(sub)
    scheme = sub.param("scheme")
    seen: Observation = []
    for name in (sub.param("float"), sub.param("int"), sub.param("uint"), "bool", scheme):
        rt = Runtime(["cpu:0", "cpu:1"], interpreter=plugged or TensorInterpreter)
        if name == scheme:
            tensor = rt.quantize(rt.tensor(np.linspace(-1, 1, 8), "cpu:0", "f32"), scheme)
        else:
            tensor = rt.tensor(np.arange(4) % 2, device="cpu:0", dtype=name)
        try:
            moved = rt.to_device(tensor, "cpu:1", policy="legacy")
            outcome: Any = ["moved", rt.handle_ids("cpu:1") == [int(moved.id)]]
        except RouterLabError as error:
            outcome = ["panics", type(error).__name__, getattr(error, "source", "")]
        alive = rt.session("cpu:0").ended is None
        seen.append((f"a {name} tensor moved cpu:0 -> cpu:1 under legacy: what happens, and is "
                     "cpu:0's session alive", [outcome, alive]))
    return seen


@dispatch.visible("in the router (legacy): the tensors whose dtype falls through panic in the "
                  "source's get_tensor, before the target's arm", hint=2)
def _(sub: Subject) -> Observation:
    return _legacy_moves(sub)


@dispatch.hidden("every plain dtype")
def _(sub: Subject) -> Observation:
    return [(f"burn_arm({d})", _arm(sub, DType.parse(d))) for d in _DTYPES]


@dispatch.hidden("quantized dtypes of every scheme", hint=2)
def _(sub: Subject) -> Observation:
    schemes = ("q8s", "q8f", "q4s", "q4f", "q2s", "q2f", "q8s:block=32:scale=f16",
               "q4s:block=16:scale=ue4m3:global=f32")
    return [(f"burn_arm(QFloat({s}))", _arm(sub, QFloat(parse_scheme(s)))) for s in schemes]


# --- gap-2: panic, dead session, hung peer ------------------------------------------------------


def _state(ended: str | None) -> str:
    return "alive" if ended is None else ended.split(":")[0]


def _readable(rt: Runtime, tensor: Any) -> bool:
    try:
        rt.read(tensor)
    except RouterLabError:
        return False
    return True


MOVES = (["cpu:0", "cpu:1"], ["cpu:0", "cpu:2"], ["cpu:1", "cpu:0"], ["cpu:1", "cpu:2"],
         ["cpu:2", "cpu:0"], ["cpu:2", "cpu:1"])
"""gap-2's variants: the quantized tensor's device and where Burn's legacy move sends it."""


def _panic_answers(move: list[str] = MOVES[0]) -> dict[str, Any]:
    """Three sessions with a tensor each; then Burn's legacy move `move[0]` -> `move[1]` of a
    quantized tensor, and what survives it."""
    rt = Runtime()
    y = rt.tensor([1.0, 2.0], device="cpu:0", dtype="f32")
    z = rt.tensor([3.0, 4.0], device="cpu:1", dtype="f32")
    w = rt.tensor([5.0, 6.0], device="cpu:2", dtype="f32")
    q = _quantized(rt, move[0])
    try:
        rt.to_device(q, move[1], policy="legacy")
    except RouterLabError:
        pass
    states = {d: _state(rt.session(d).ended) for d in ("cpu:0", "cpu:1", "cpu:2")}
    return {"CPU0": states["cpu:0"], "CPU1": states["cpu:1"], "CPU2": states["cpu:2"],
            "Y_READABLE": _readable(rt, y), "Z_READABLE": _readable(rt, z),
            "W_READABLE": _readable(rt, w)}


panics = PredictSuite(
    "gap-2",
    parts=[
        Part("CPU0", "the state of cpu:0's session after the move", _STATES),
        Part("CPU1", "the state of cpu:1's session after the move", _STATES),
        Part("CPU2", "the state of cpu:2's session after the move", _STATES),
        Part("Y_READABLE", "whether y (an f32 tensor on cpu:0) can still be read", yes_no),
        Part("Z_READABLE", "whether z (an f32 tensor on cpu:1) can still be read", yes_no),
        Part("W_READABLE", "whether w (an f32 tensor on cpu:2) can still be read", yes_no),
    ],
    oracle=_panic_answers,
    mistakes={
        "thought only the source panics": lambda move: {
            f"CPU{move[1][-1]}": "alive",
            "YZW"[int(move[1][-1])] + "_READABLE": True},
        "thought the panic ends every session": lambda move: {
            "CPU0": "panicked", "CPU1": "panicked", "CPU2": "panicked",
            "Y_READABLE": False, "Z_READABLE": False, "W_READABLE": False},
    },
)
