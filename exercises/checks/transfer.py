"""Checks of the device-transfer exercises: same-peer moves of every plain dtype
(crates/burn-router/src/interpreter.rs:88-127; docs/transfers.md).

transfer-1 gives the interpreters of a real runtime the student's `get_tensor` /
`register_tensor_to_device` (an instance-level subclass set on that runtime's interpreters; no
core module is touched; quantized tensors keep the model's arms), then moves tensors of every
plain dtype between two sessions of one peer. The same moves on an unplugged runtime are the
model's answer.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ...core import (
    READ_ONLY,
    DType,
    HandleContainer,
    Kind,
    Runtime,
    TensorId,
    TensorInterpreter,
    TensorIr,
    TransferRequest,
    kind_of,
)
from .base import (
    CheckFailure,
    Observation,
    Part,
    PredictSuite,
    Subject,
    Suite,
    choice,
)

moves = Suite("transfer-1")
_VALUES = {DType.F32: [1.5, -2.0, 3.25], DType.F16: [0.5, 1.0, -1.0], DType.F64: [1e-3, 2.0, 3.0],
           DType.I64: [-5, 6, 7], DType.I32: [-1, 0, 1], DType.I16: [300, -300, 1],
           DType.I8: [-128, 0, 127], DType.U8: [0, 200, 255], DType.U16: [1, 2, 60000],
           DType.U32: [7, 8, 9], DType.U64: [1, 2, 3], DType.BOOL: [True, False, True]}


def _model_get_tensor(handles: Any, ir: TensorIr) -> Any:
    from ...core import HandleKind

    return HandleKind(kind_of(ir.dtype), handles.get_tensor_handle(ir))


moves.model(get_tensor=_model_get_tensor)


def runtime(sub: Subject, devices: tuple[str, ...] = ("cpu:0", "cpu:1")) -> Runtime:
    """A runtime whose non-quantized same-peer transfers go through `sub`'s two functions (the
    model's own runtime, unplugged, for the model)."""
    if sub.is_model:
        return Runtime(list(devices))
    student_get = sub.function("get_tensor")
    student_register = sub.function("register_tensor_to_device")

    class Plugged(TensorInterpreter):
        def get_tensor(self, tensor: TensorIr, request: TransferRequest | None = None) -> Any:
            if kind_of(tensor.dtype) is Kind.QUANTIZED:
                return super().get_tensor(tensor, request)
            return student_get(self.handles, tensor)

        def register_tensor_to_device(self, id: TensorId, tensor: Any,
                                      request: TransferRequest | None = None) -> None:
            if getattr(tensor, "kind", None) is Kind.QUANTIZED:
                return super().register_tensor_to_device(id, tensor, request)
            student_register(self.backend, self.handles, id, tensor)
            return None

    return Runtime(list(devices), interpreter=Plugged)  # the runtime's documented hook


def _move(sub: Subject, dtype: DType, shared: bool, values: list[Any] | None = None
          ) -> dict[str, Any]:
    """Move a tensor of `dtype` (`values`, else the dtype's usual ones) cpu:0 -> cpu:1 (same
    peer) and observe everything."""
    rt = runtime(sub)
    x = rt.tensor(values or _VALUES[dtype], "cpu:0", dtype.value)
    keep = rt.clone(x) if shared else None
    y = rt.to_device(x, "cpu:1")
    handle = rt.handle("cpu:1", y.id)
    return {"cpu:0": rt.handle_ids("cpu:0"), "cpu:1": rt.handle_ids("cpu:1"),
            "values": rt.read(y).tolist(), "dtype": str(getattr(handle, "dtype", None)),
            "on": str(getattr(handle, "device", None)),
            "kept": keep is not None and bool(rt.handle_ids("cpu:0"))}


_MEANING = (("values", "values read on cpu:1"), ("dtype", "dtype registered on cpu:1"),
            ("on", "device of the primitive registered on cpu:1"),
            ("cpu:0", "ids left on cpu:0"), ("cpu:1", "ids on cpu:1"))


def _observe_move(sub: Subject, dtype: DType, shared: bool = False,
                  values: list[Any] | None = None) -> Observation:
    seen = _move(sub, dtype, shared, values)
    what = f"{'a shared' if shared else 'a unique'} {dtype} tensor moved cpu:0 -> cpu:1"
    return [(f"{what}: {meaning}", seen[key]) for key, meaning in _MEANING]


def _own_values(sub: Subject) -> list[float]:
    """The student's own f32 tensor (their variant's first value)."""
    return [sub.param("first") + 0.5, -2.0, 3.25]


@moves.visible("a unique f32 tensor moves to cpu:1, values intact, source entry gone", hint=2)
def _(sub: Subject) -> Observation:
    return _observe_move(sub, DType.F32, values=_own_values(sub))


@moves.visible("i32 and bool tensors move too", hint=2)
def _(sub: Subject) -> Observation:
    return _observe_move(sub, DType.I32) + _observe_move(sub, DType.BOOL)


@moves.visible("a u8 tensor moves (Burn 2c06be3 hits todo! here: is_int is false for unsigned)",
               hint=2)
def _(sub: Subject) -> Observation:
    return _observe_move(sub, DType.U8)


@moves.visible("a shared tensor is copied: the source keeps its entry (the IR's status decides)",
               hint=2)
def _(sub: Subject) -> Observation:
    return _observe_move(sub, DType.F32, shared=True, values=_own_values(sub))


@moves.visible("get_tensor labels the handle with the dtype's kind", hint=2)
def _(sub: Subject) -> Observation:
    rt = Runtime(["cpu:0"])
    seen: Observation = []
    for dtype in (DType.F16, DType.I8, DType.U32, DType.BOOL):
        x = rt.tensor(_VALUES[dtype], "cpu:0", dtype.value)
        ir = TensorIr(x.id, x.shape, READ_ONLY, x.dtype)
        held = HandleContainer.over({int(x.id): rt.handle("cpu:0", x.id)}, "cpu:0")
        got = sub.function("get_tensor")(held, ir)
        kind = getattr(got, "kind", got)
        seen.append((f"get_tensor(…) of a {dtype} tensor: its HandleKind's kind",
                     kind.name if isinstance(kind, Kind) else kind))
    return seen


@moves.hidden("every plain dtype, unique and shared")
def _(sub: Subject) -> Observation:
    rng = random.Random(5036)
    cases = [(dtype, shared) for dtype in _VALUES for shared in (False, True)]
    rng.shuffle(cases)
    seen: Observation = []
    for dtype, shared in cases:
        seen.append((f"moving a {'shared' if shared else 'unique'} {dtype} tensor: registries, "
                     "values, dtype, device", _move(sub, dtype, shared)))
    return seen


@moves.hidden("a moved tensor is a copy on the target device, not the source's array")
def _(sub: Subject) -> Observation:
    rt = runtime(sub)
    x = rt.tensor([1.0, 2.0, 3.0], "cpu:0", "f32")
    keep = rt.clone(x)
    y = rt.to_device(x, "cpu:1")
    source = rt.handle("cpu:0", keep.id)
    target = rt.handle("cpu:1", y.id)
    if source is None or target is None:
        raise CheckFailure("after moving one of two clones, both registries must hold the tensor",
                           hint=2)
    return [("the registered primitive on cpu:1 shares memory with cpu:0's (use the target "
             "backend's *_to_device, which copies)",
             target is source or bool(np.shares_memory(target.array, source.array)))]


# --- transfer-2: moved vs copied ---------------------------------------------------------------


def _registries(value: Any) -> dict[str, list[int]]:
    if not isinstance(value, dict) or set(value) != {"cpu:0", "cpu:1"} or not all(
            isinstance(v, list | tuple) and all(isinstance(i, int) for i in v)
            for v in value.values()):
        raise CheckFailure('write a dict {"cpu:0": [ids], "cpu:1": [ids]}', got=repr(value),
                           hint=1)
    return {k: sorted(v) for k, v in value.items()}


def _tensor_id(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise CheckFailure("write one tensor id (an int)", got=repr(value), hint=1)
    return value


def _transfer2_answers(on0: int = 0, on1: int = 0) -> dict[str, Any]:
    """Run transfer-2's program on the model (`on0` tensors on cpu:0 and `on1` on cpu:1 made
    first, so every id of the program shifts) and observe."""
    rt = Runtime(["cpu:0", "cpu:1", "peer2/cpu:0"])
    for _ in range(on0):
        rt.tensor([0], "cpu:0", "i32")
    for _ in range(on1):
        rt.tensor([0], "cpu:1", "i32")

    def look() -> dict[str, list[int]]:
        return {"cpu:0": rt.handle_ids("cpu:0"), "cpu:1": rt.handle_ids("cpu:1")}

    x = rt.tensor([1, 2, 3], "cpu:0", "i32")
    y = rt.clone(x)
    a = rt.to_device(x, "cpu:1")
    first = look()
    b = rt.to_device(y, "cpu:1")
    second = look()
    c = rt.to_device(a, "cpu:1")
    far = rt.to_device(b, "peer2/cpu:0")
    return {"AFTER_FIRST": first, "AFTER_SECOND": second, "SAME_DEVICE_ID": int(c.id),
            "PEER_ID": int(far.id), "AFTER_PEER": look()}


moved_or_copied = PredictSuite(
    "transfer-2",
    parts=[
        Part("AFTER_FIRST", "both registries after the first move", _registries),
        Part("AFTER_SECOND", "both registries after the second move", _registries),
        Part("SAME_DEVICE_ID", "the id of c", _tensor_id),
        Part("PEER_ID", "the id of the tensor that arrives on peer2/cpu:0", _tensor_id),
        Part("AFTER_PEER", "both local registries after the move to peer2", _registries),
    ],
    oracle=_transfer2_answers,
    mistakes={
        "thought a move to the same device mints a new id": lambda on0, on1: {
            "SAME_DEVICE_ID": _transfer2_answers(on0, on1)["PEER_ID"],
            "PEER_ID": _transfer2_answers(on0, on1)["PEER_ID"] + 1},
        "thought a shared tensor moves (the source gives up its entry)":
            lambda on0, on1: _shared_moved(_transfer2_answers(on0, on1)),
    },
)


def _shared_moved(truth: dict[str, Any]) -> dict[str, Any]:
    """transfer-2's first registries as a student who forgets y's clone writes them: x's id
    (cpu:0's highest, the last tensor made there) gone from cpu:0 after the first move."""
    first = truth["AFTER_FIRST"]
    return {"AFTER_FIRST": {"cpu:0": first["cpu:0"][:-1], "cpu:1": first["cpu:1"]}}


# --- transfer-4: what a move costs, as it grows with the tensor -----------------------------

MEBIBYTE = 1 << 20
"""The host traffic whose crossing point transfer-4 asks for (its statement says 1 MiB)."""


def _bytes(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise CheckFailure("write a whole number", got=repr(value), hint=1)
    return value


_fate = choice("moved", "copied")


def _wire_bytes(rt: Runtime, mark: int, kinds: tuple[str, ...]) -> int:
    return sum(e.nbytes for e in rt.trace.read(mark) if e.kind in kinds)


def _costs(values: int, dtype: str = "f32") -> tuple[int, str, int]:
    """Run transfer-4's program for a tensor of `values` zeros of `dtype`: the host bytes of the
    move to another peer, whether it moved or copied, and the device bytes of the local move."""
    rt = Runtime(["cpu:0", "cpu:1", "peer2/cpu:0"])
    t = rt.tensor(np.zeros(values), "cpu:0", dtype)
    keep = rt.clone(t)
    mark = len(rt.trace)
    rt.to_device(t, "peer2/cpu:0")
    host = _wire_bytes(rt, mark, ("publish", "download"))
    fate = "copied" if int(keep.id) in rt.handle_ids("cpu:0") else "moved"
    mark = len(rt.trace)
    rt.to_device(keep, "cpu:1")
    return host, fate, _wire_bytes(rt, mark, ("copy",))


def _cost_answers(dtype: str = "f32", mib: int = 1) -> dict[str, Any]:
    """The per-value rates measured at two sizes (they must agree: the cost is linear), and the
    crossing point of `mib` MiB found from the rate and confirmed by running both sides of it."""
    small, large = _costs(10, dtype), _costs(1000, dtype)
    host_rate, local_rate = large[0] // 1000, large[2] // 1000
    limit = mib * MEBIBYTE
    crossing = -(-limit // host_rate)
    if (host_rate * 10, local_rate * 10) != (small[0], small[2]) or not (
            _costs(crossing - 1, dtype)[0] < limit <= _costs(crossing, dtype)[0]):
        raise RuntimeError("transfer-4: the model's transfer costs are not linear in N")
    return {"HOST_BYTES_PER_VALUE": host_rate, "LOCAL_BYTES_PER_VALUE": local_rate,
            "SOURCE": large[1], "CROSSING_N": crossing}


costs = PredictSuite(
    "transfer-4",
    parts=[
        Part("HOST_BYTES_PER_VALUE",
             "host bytes per value (out plus in) of the move to peer2/cpu:0", _bytes),
        Part("LOCAL_BYTES_PER_VALUE", "device bytes per value of the move of keep to cpu:1",
             _bytes),
        Part("SOURCE", "whether the tensor moved or was copied to peer2/cpu:0", _fate),
        Part("CROSSING_N", "the smallest N whose move to peer2/cpu:0 puts the limit through the "
             "host", _bytes),
    ],
    oracle=_cost_answers,
    mistakes={
        "counted the bytes once, not out and in": lambda dtype, mib: {
            "HOST_BYTES_PER_VALUE": _cost_answers(dtype, mib)["HOST_BYTES_PER_VALUE"] // 2,
            "CROSSING_N": 2 * _cost_answers(dtype, mib)["CROSSING_N"]},
        "thought a move to another peer takes the tensor away": lambda dtype, mib: {
            "SOURCE": "moved" if _cost_answers(dtype, mib)["SOURCE"] == "copied" else "copied"},
    },
)
