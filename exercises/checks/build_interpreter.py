"""build-3: the interpreter's same-peer arms and the rendezvous (crates/burn-router/src/
interpreter.rs:88-127, crates/burn-remote/src/server/local_comm.rs:14-79, worker.rs:280-310):
the learner's interpreters on devices of one peer beside the model's, with its quantized arms.
The bench and its readings serve build-4 and build-5 too."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core import (
    READ_ONLY,
    READ_WRITE,
    Backend,
    DType,
    HandleContainer,
    HandleKind,
    Kind,
    Primitive,
    TensorId,
    TensorInterpreter,
    TensorIr,
    make_backend,
)
from ...core.base.devices import parse_device
from ...core.fix.arms import QuantizedTransfers
from ...core.fix.qtensor import QPrimitive
from ...core.quant import quantize_dynamic
from .base import CheckFailure, Observation, Subject, Suite, to_data
from .build_common import Call, did, traced
from .build_handles import ModelHandles, handle_sequences

# crates/burn-router/src/interpreter.rs:88-127, crates/burn-remote/src/server/local_comm.rs:14-79,
# crates/burn-remote/src/server/worker.rs:280-310


class _ModelContainer(HandleContainer):
    """The model's registry, with the one method name the probes use to put a handle in."""

    __slots__ = ()
    register_handle = HandleContainer.register


class ModelInterpreter(TensorInterpreter):
    """The model's interpreter in the learner's signature: one backend, the model's quantized
    arms (`routerlab.core.fix.arms`, RouterLab's fix of Burn's two `todo!()`s) under `native`."""

    container = _ModelContainer

    def __init__(self, backend: Backend) -> None:
        super().__init__(backend, quantized=QuantizedTransfers())


class ModelLocalComm:
    """The model's same-peer rendezvous (routerlab.core.router.server: `expose_local`,
    `take_local`, run by the sessions) in the learner's signature. In one thread, a target that
    arrives first cannot wait: its registration is parked, and the expose completes it."""

    def __init__(self) -> None:
        self.exposed: dict[int, HandleKind] = {}
        self.waiting: dict[int, tuple[Any, TensorId]] = {}

    def expose_tensor_local(self, source: Any, tensor: TensorIr, transfer_id: int) -> None:
        kind = source.get_tensor(tensor)
        if transfer_id in self.waiting:
            target, new_id = self.waiting.pop(transfer_id)
            target.register_tensor_to_device(new_id, kind)
        else:
            self.exposed[transfer_id] = kind

    def register_tensor_local(self, target: Any, transfer_id: int, new_id: TensorId) -> None:
        if transfer_id in self.exposed:
            target.register_tensor_to_device(new_id, self.exposed.pop(transfer_id))
        else:
            self.waiting[transfer_id] = (target, new_id)

    def pending(self) -> int:
        return len(self.exposed) + len(self.waiting)


arms = Suite("build-3")
arms.model(TensorInterpreter=ModelInterpreter, LocalComm=ModelLocalComm,
           HandleContainer=ModelHandles)


@dataclass
class Bench:
    """Interpreters of the subject's class, by device name."""

    interps: dict[str, Any]


def bench(sub: Subject, *devices: str) -> Bench:
    cls = sub.function("TensorInterpreter")
    made = Bench({})
    for name in devices:
        interp = cls(make_backend(parse_device(name)))
        for field in ("backend", "handles", "get_tensor", "register_tensor_to_device"):
            if getattr(interp, field, None) is None:
                raise CheckFailure(f"your TensorInterpreter has no `{field}`; keep the names the "
                                   "starter gives", hint=1)
        made.interps[name] = interp
    return made


def registry(b: Bench, name: str) -> list[int]:
    return sorted(int(i) for i in b.interps[name].handles.handle_ids())


def copied(b: Bench, name: str) -> list[int]:
    backend = b.interps[name].backend
    return [backend.copies, backend.bytes_copied]


def arrived(b: Bench, name: str, id: int) -> Any:
    """What the target holds under `id`, as data: a plain tensor's values, dtype and device, a
    quantized one's stored words, scales, global, scheme and device."""
    handle = b.interps[name].handles.get_handle_ref(TensorId(id))
    if isinstance(handle, QPrimitive):
        t = handle.tensor
        return [t.values.tolist(), t.scales.tolist(),
                None if t.global_scale is None else float(t.global_scale), str(t.scheme),
                str(handle.device)]
    if isinstance(handle, Primitive):
        return [handle.array.tolist(), str(handle.dtype), str(handle.device)]
    return {"object": repr(handle)[:80]}


def put(b: Bench, name: str, id: int, handle: Any) -> None:
    b.interps[name].handles.register_handle(TensorId(id), handle)


def move(b: Bench, source: str, target: str, ir: TensorIr, new_id: int) -> list[Any]:
    """interpreter.rs's two halves of a same-peer move: the source's get_tensor, the target's
    register_tensor_to_device; what the kind in transit was."""
    kind = b.interps[source].get_tensor(ir)
    name = kind.kind.value if isinstance(kind, HandleKind) else {"object": repr(kind)[:80]}
    b.interps[target].register_tensor_to_device(TensorId(new_id), kind)
    return [name]


def plain(values: Any, dtype: DType, device: str) -> Primitive:
    return Primitive(np.asarray(values, dtype=dtype.numpy), dtype, parse_device(device))


def quantized(values: Any, scheme: str, device: str) -> QPrimitive:
    """A tensor quantized by the model's kernels on `device` (the flex profile)."""
    tensor = quantize_dynamic(np.asarray(values, dtype=np.float32), scheme)
    return QPrimitive(tensor, parse_device(device))


def moves_of(b: Bench, handle: Any, dtype: Any, first: int) -> Observation:
    """A shared use (ReadOnly, copied) and then the last use (ReadWrite, moved) of `handle`,
    registered on cpu:0 under `first`, to cpu:1."""
    put(b, "cpu:0", first, handle)
    shape = tuple(handle.shape)
    seen: Observation = []
    for status, new_id in ((READ_ONLY, first + 1), (READ_WRITE, first + 2)):
        kind = move(b, "cpu:0", "cpu:1", TensorIr(TensorId(first), shape, status, dtype), new_id)
        seen.append((f"{status} use moved as {new_id}: kind in transit, ids on (cpu:0, cpu:1), "
                     "(copies, bytes) on cpu:1, what arrived",
                     [kind, registry(b, "cpu:0"), registry(b, "cpu:1"), copied(b, "cpu:1"),
                      arrived(b, "cpu:1", new_id)]))
    return seen


@arms.visible("the float, int and bool arms: a shared use is copied, the last use moves", hint=2)
@traced
def _(sub: Subject) -> Observation:
    b = bench(sub, "cpu:0", "cpu:1")
    x = [float(v) for v in sub.param("x")]
    seen: Observation = []
    for n, (values, dtype) in enumerate(((x, DType.F32), ([int(v * 10) for v in x], DType.I32),
                                         ([v > 0 for v in x], DType.BOOL))):
        handle = plain(values, dtype, "cpu:0")
        seen += [(f"{dtype}: {label}", value)
                 for label, value in moves_of(b, handle, dtype, 10 * n + sub.param("tid"))]
    return seen


@arms.visible("the quantized arm Burn leaves as todo!(): values, scales and global arrive, "
              "bit for bit, and the source keeps its own", hint=2)
@traced
def _(sub: Subject) -> Observation:
    b = bench(sub, "cpu:0", "cpu:1")
    q = quantized(sub.param("x"), sub.param("scheme"), "cpu:0")
    seen = moves_of(b, q, q.dtype, sub.param("tid"))
    put(b, "cpu:0", 40, q)
    copy = b.interps["cpu:1"].handles.get_handle_ref(TensorId(sub.param("tid") + 1))
    seen.append(("the copy on cpu:1 shares no memory with the source's values or scales",
                 isinstance(copy, QPrimitive)
                 and not np.shares_memory(copy.tensor.values, q.tensor.values)
                 and not np.shares_memory(copy.tensor.scales, q.tensor.scales)))
    return seen


@arms.visible("a move onto the device the tensor is already on copies nothing", hint=2)
@traced
def _(sub: Subject) -> Observation:
    again = bench(sub, "cpu:0")
    q = quantized(sub.param("x"), sub.param("scheme"), "cpu:0")
    f = plain([float(v) for v in sub.param("x")], DType.F32, "cpu:0")
    seen: Observation = []
    for label, handle in (("quantized", q), ("f32", f)):
        kind = HandleKind(Kind.QUANTIZED if handle is q else Kind.FLOAT, handle)
        again.interps["cpu:0"].register_tensor_to_device(TensorId(7), kind)
        held_now = again.interps["cpu:0"].handles.get_handle_ref(TensorId(7))
        seen.append((f"{label}: registered as it is (the same object), (copies, bytes)",
                     [held_now is handle, copied(again, "cpu:0")]))
    return seen


@arms.visible("the rendezvous: the source may expose first, or the target may arrive first",
              hint=2)
@traced
def _(sub: Subject) -> Observation:
    b = bench(sub, "cpu:0", "cpu:1")
    comm = sub.function("LocalComm")()
    tid = sub.param("tid")
    put(b, "cpu:0", tid, plain([1.0, 2.0], DType.F32, "cpu:0"))
    put(b, "cpu:0", tid + 1, plain([3.0, 4.0], DType.F32, "cpu:0"))
    src, dst = b.interps["cpu:0"], b.interps["cpu:1"]
    ir = TensorIr(TensorId(tid), (2,), READ_WRITE, DType.F32)
    ir2 = TensorIr(TensorId(tid + 1), (2,), READ_WRITE, DType.F32)
    seen: Observation = []
    steps: list[tuple[str, Call]] = [
        ("transfer 1: the source exposes", lambda: comm.expose_tensor_local(src, ir, 1)),
        ("transfer 1: the target takes it as 20",
         lambda: comm.register_tensor_local(dst, 1, TensorId(20))),
        ("transfer 2: the target arrives first, as 21",
         lambda: comm.register_tensor_local(dst, 2, TensorId(21))),
        ("transfer 2: the source exposes", lambda: comm.expose_tensor_local(src, ir2, 2)),
    ]
    for label, step in steps:
        step()
        seen.append((f"{label}: pending, ids on (cpu:0, cpu:1)",
                     [to_data(comm.pending()), registry(b, "cpu:0"), registry(b, "cpu:1")]))
    seen.append(("what arrived as 20 and 21", [arrived(b, "cpu:1", 20), arrived(b, "cpu:1", 21)]))
    return seen


SAME_PEER_MOVES = "seeded random tensors, dtypes and schemes moved along cpu:0 -> cpu:1 -> cpu:2"
CONTAINER = ("the HandleContainer the interpreter keeps (build-1's): seeded random sequences of "
             "handle.rs's calls, NotInit gets and has_handle included")
CARRIED_CASES = 60
"""How many of build-1's sequences a checkpoint that carries the container grades again."""


@arms.hidden(SAME_PEER_MOVES)
@traced
def same_peer_moves(sub: Subject) -> Observation:
    """The two halves of interpreter.rs:88-127 over every kind; build-4, whose learner carries
    them over, grades them again."""
    rng = random.Random(2160)
    seen: Observation = []
    for case in range(12):
        b = bench(sub, "cpu:0", "cpu:1", "cpu:2")
        x = np.random.default_rng(case).normal(size=(2, 8)).astype(np.float32)
        pick = case % 4
        if pick == 3:
            scheme = rng.choice(("q8s", "q8f", "q4s", "q2s")) + rng.choice((
                "", ":block=4", ":block=8:scale=f16", ":block=4:scale=ue4m3:global=f32"))
            handle: Any = quantized(x, scheme, "cpu:0")
        else:
            dtype = (DType.F32, DType.I64, DType.BOOL)[pick]
            data = x if pick == 0 else (x * 100).astype(np.int64) if pick == 1 else x > 0
            handle = Primitive(np.asarray(data, dtype=dtype.numpy), dtype, parse_device("cpu:0"))
        put(b, "cpu:0", 1, handle)
        dtype_of = handle.dtype
        shape = tuple(handle.shape)
        steps = (("cpu:0", "cpu:1", 1, 2, READ_ONLY), ("cpu:0", "cpu:1", 1, 3, READ_WRITE),
                 ("cpu:1", "cpu:2", 3, 4, READ_WRITE), ("cpu:1", "cpu:2", 2, 5, READ_ONLY))
        for source, target, id, new_id, status in steps:
            kind = move(b, source, target, TensorIr(TensorId(id), shape, status, dtype_of),
                        new_id)
            seen.append((f"case {case} ({dtype_of}): {id} on {source} -> {new_id} on {target} "
                         f"({status})", [kind, [registry(b, d) for d in b.interps],
                                         [copied(b, d) for d in b.interps],
                                         arrived(b, target, new_id)]))
        kept = b.interps["cpu:2"].handles.get_handle_ref(TensorId(5))
        seen.append((f"case {case}: what arrived on cpu:2 shares memory with the original",
                     shares(kept, handle)))
        move(b, "cpu:2", "cpu:2", TensorIr(TensorId(5), shape, READ_ONLY, dtype_of), 6)
        again = b.interps["cpu:2"].handles.get_handle_ref(TensorId(6))
        seen.append((f"case {case}: 5 moved onto its own device as 6: the same object, "
                     "(copies, bytes) on cpu:2", [again is kept, copied(b, "cpu:2")]))
        seen.append((f"case {case}: a ReadWrite use of 1 on cpu:0 once it moved",
                     did(lambda: b.interps["cpu:0"].get_tensor(  # noqa: B023
                         TensorIr(TensorId(1), shape, READ_WRITE, dtype_of)))))  # noqa: B023
    return seen


def shares(one: Any, other: Any) -> bool:
    """Whether two handles share any memory (values, or a quantized tensor's scales)."""
    if isinstance(one, QPrimitive) and isinstance(other, QPrimitive):
        return bool(np.shares_memory(one.tensor.values, other.tensor.values)
                    or np.shares_memory(one.tensor.scales, other.tensor.scales))
    if isinstance(one, Primitive) and isinstance(other, Primitive):
        return bool(np.shares_memory(one.array, other.array))
    return True


@arms.hidden("the rendezvous under many interleavings")
@traced
def _(sub: Subject) -> Observation:
    rng = random.Random(306)
    seen: Observation = []
    for case in range(20):
        b = bench(sub, "cpu:0", "cpu:1")
        comm = sub.function("LocalComm")()
        src, dst = b.interps["cpu:0"], b.interps["cpu:1"]
        events = []
        for t in range(1, 4):
            put(b, "cpu:0", t, plain([float(t)], DType.F32, "cpu:0"))
            events += [("expose", t), ("register", t)]
        rng.shuffle(events)
        for what, t in events:
            if what == "expose":
                ir = TensorIr(TensorId(t), (1,), READ_WRITE, DType.F32)
                comm.expose_tensor_local(src, ir, t)
            else:
                comm.register_tensor_local(dst, t, TensorId(10 + t))
            seen.append((f"case {case}: {what} {t}: pending, ids on (cpu:0, cpu:1)",
                         [to_data(comm.pending()), registry(b, "cpu:0"),
                          registry(b, "cpu:1")]))
        seen.append((f"case {case}: arrived", [arrived(b, "cpu:1", 10 + t) for t in (1, 2, 3)]))
    return seen


@arms.hidden(CONTAINER)
@traced
def container_sequences(sub: Subject) -> Observation:
    """The interpreter's halves lean on the container (handle.rs:66-225), which the learner
    carries over from build-1 into build-3 and later: a container that answers has_handle,
    free or a NotInit get wrongly would hand a wrong registry to everything built on it, so
    each grades it again, on the first cases of build-1's own sequences."""
    return handle_sequences(sub, CARRIED_CASES)
