"""The capstone: the learner's own router, built from the pieces of the earlier checkpoints
(docs/exercises.md, "The capstone"; notebooks/10-capstone-router.ipynb).

Each piece goes where the model's own runs, through the hooks the earlier checks use:
`get_handle` reads every registry (`Runtime(interpreter=...)`, registry-1), `status_for` gives
each use its status (an instance subclass of `RouterTensor`, registry-3), `round_up` and
`pack_u32` store the scales and the u32 words of every quantize (quant-2, quant-3), the guard
decides on the client (fix-1), and `get_tensor` with the new `register_quantized` are the native
arms of `Runtime(quantized=...)` (fix-2; crates/burn-router/src/interpreter.rs:88-127, where
Burn 2c06be3 has `todo!()` for both). Only `register_quantized` is required: a piece the
submission leaves out is the model's, and the first visible check names the ones still left.

The flow is the tour's (`routerlab.teaching.tour`): quantize on cpu:0, ask the guard, move a
shared clone (copied) and the last reference (moved) natively to cpu:1, read the arrival back.
It runs on the learner's router and on the model's, and every stored word and scale is compared:
bit-exact or not at all.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core import (
    HandleContainer,
    HandleKind,
    Kind,
    RouterTensor,
    Runtime,
    TensorId,
    TensorInterpreter,
    make_backend,
)
from ...core.fix import can_move_to_device as model_can_move
from ...core.fix import is_quantized_handle as model_is_quantized
from ...core.fix import q_to_device as model_q_to_device
from ...teaching.tour import SCHEME
from .base import CheckFailure, Observation, Subject, Suite
from .fix import native_arms
from .lifecycle import status_class
from .quant import packing_through, storing_through
from .registry import plugged_interpreter

F32 = np.float32


@dataclass(frozen=True)
class Piece:
    """One function of the learner's router and the checkpoint where it was written."""

    name: str
    exercise: str
    notebook: str
    role: str


PIECES = (
    Piece("get_handle", "registry-1", "01-handles", "reads every handle of both registries"),
    Piece("status_for", "registry-3", "01-handles", "gives each use of a tensor its status"),
    Piece("round_up", "quant-2", "", "stores each block scale in its scale dtype"),
    Piece("pack_u32", "quant-3", "04-quantization", "packs the q values into u32 words"),
    Piece("is_quantized_handle", "fix-1", "05-the-gap", "the guard: is this handle quantized?"),
    Piece("can_move_to_device", "fix-1", "05-the-gap", "the guard: may it move under a policy?"),
    Piece("get_tensor", "fix-2", "06-the-fix", "the source arm: takes the quantized handle"),
    Piece("register_quantized", "capstone-1", "10-capstone-router",
          "the target arm Burn never wrote: values, scales, global and scheme arrive"),
)
ARM = "register_quantized"
"""The one piece the capstone asks for; the others are brought from earlier checkpoints."""

FLOW_SCHEME = "q4s:block=8:scale=ue4m3:global=f32:store=packed-u32"
"""A scheme that needs every piece: block scales stored in UE4M3 (`round_up`), a global scale,
u32 words (`pack_u32`)."""


def flow_values(low: float, high: float) -> np.ndarray:
    """The tensor quantized with `FLOW_SCHEME`: 2 × 16 values from `-low` to `high`."""
    return np.linspace(-low, high, 32, dtype=F32).reshape(2, 16)


Flow = tuple[str, Any, str, str]
"""One flow a visible check runs: its title, the values, the scheme and the profile."""


def flows(params: Mapping[str, Any]) -> tuple[Flow, Flow]:
    """The visible checks' two flows on a variant's inputs: the tour's, on the variant's three
    values `x` (of the tour's shape, never the tour's own: those read back as fix-3's answer,
    `-0.9` -> `-1.2`, and no screen states an answer), and every piece at work on the values
    from `-low` to `high`."""
    x, low, high = list(params["x"]), params["low"], params["high"]
    return ((f"the tour's flow: x = {x} as {SCHEME} on flex", x, SCHEME, "flex"),
            (f"every piece at work: {FLOW_SCHEME} on cubecl, x from -{low} to {high}",
             flow_values(low, high), FLOW_SCHEME, "cubecl"))


def model_register(backend: Any, handles: Any, tensor_id: TensorId, q: Any) -> None:
    """The model's arm in the learner's signature: `q_to_device`, then register."""
    handles.register(tensor_id, model_q_to_device(backend, q))


capstone = Suite("capstone-1")
capstone.model(register_quantized=model_register)


def missing(sub: Subject) -> list[str]:
    """The pieces a submission leaves out: the model's own runs in their place (the model's
    router has every piece, so its answer is none)."""
    if sub.is_model:
        return []
    return [p.name for p in PIECES if p.name != ARM and sub.optional(p.name) is None]


@dataclass(frozen=True)
class Router:
    """A runtime on two devices assembled from a subject's pieces, and the guard in front."""

    rt: Runtime
    own: Callable[[RouterTensor], RouterTensor]
    is_quantized: Callable[[Any], Any]
    can_move: Callable[[Any, str], Any]


@contextmanager
def router(sub: Subject, profile: str) -> Iterator[Router]:
    """The subject's router on `cpu:0@profile` and `cpu:1@profile`, its quantizer storing
    through the subject's `round_up` and `pack_u32` while the context is open."""
    piece = sub.optional
    arm = None if sub.is_model else sub.function(ARM)

    def place(interp: Any, id: TensorId, q: Any) -> Any:
        assert arm is not None  # placed only when the subject brought its arm
        arm(interp.backend, interp.handles, id, q)
        return interp.handles.get_handle_ref(id)

    get_handle, status_for = piece("get_handle"), piece("status_for")
    interpreter = TensorInterpreter if get_handle is None else plugged_interpreter(get_handle)
    quantized = None if arm is None else native_arms(piece("get_tensor"), place)
    plugged = None if status_for is None else status_class(status_for)

    def own(tensor: RouterTensor) -> RouterTensor:
        if plugged is not None:
            tensor.__class__ = plugged
        return tensor

    with ExitStack() as stack:
        stack.enter_context(storing_through(piece("round_up")))
        stack.enter_context(packing_through(piece("pack_u32")))
        rt = Runtime([f"cpu:0@{profile}", f"cpu:1@{profile}"], quantized=quantized,
                     interpreter=interpreter)
        yield Router(rt, own, piece("is_quantized_handle") or model_is_quantized,
                     piece("can_move_to_device") or model_can_move)


def stored(primitive: Any) -> list[Any]:
    """Everything a quantized primitive holds, as data: the stored values (int8 or u32 words),
    the scales as stored, the global scale, the scheme, the device."""
    t = primitive.tensor
    return [np.asarray(t.values).tolist(), np.asarray(t.scales).tolist(),
            None if t.global_scale is None else float(t.global_scale), str(t.scheme),
            str(primitive.device)]


def _yes_no(value: Any, call: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise CheckFailure(f"{call} must return True or False", got=repr(value), hint=1)
    return bool(value)


def tour_flow(sub: Subject, values: Any, scheme: str, profile: str) -> Observation:
    """The tour's quantized flow through the subject's router, step by step."""
    a, b = f"cpu:0@{profile}", f"cpu:1@{profile}"
    with router(sub, profile) as r:
        rt, own = r.rt, r.own
        q = own(rt.quantize(own(rt.tensor(np.asarray(values, dtype=F32), a, "f32")), scheme))
        source = rt.handle(a, q.id)
        seen: Observation = [
            ("quantized on cpu:0: values, scales, global, scheme, device", stored(source)),
            ("ids on (cpu:0, cpu:1) after quantize", [rt.handle_ids(a), rt.handle_ids(b)])]
        kind = HandleKind(Kind.QUANTIZED, source)
        allowed = {policy: _yes_no(r.can_move(q.dtype, policy),
                                   f"can_move_to_device({q.dtype}, {policy!r})")
                   for policy in ("reject", "native")}
        seen.append(("the guard on the client: is_quantized_handle(the handle), may it move "
                     "under 'reject', under 'native'",
                     [_yes_no(r.is_quantized(kind), "is_quantized_handle"), allowed["reject"],
                      allowed["native"]]))
        if not allowed["native"]:
            return seen + [("a native move to cpu:1", "refused by the guard")]
        moved = q
        for what, tensor in (("a shared clone moves to cpu:1 (copied)", own(rt.clone(q))),
                             ("the last reference moves to cpu:1 (moved)", q)):
            before = rt.bytes_copied()
            moved = own(rt.to_device(tensor, b, policy="native"))
            seen.append((f"{what}: bytes copied, ids on (cpu:0, cpu:1)",
                         [rt.bytes_copied() - before, rt.handle_ids(a), rt.handle_ids(b)]))
        arrived = rt.handle(b, moved.id)
        seen.append(("arrived on cpu:1: values, scales, global, scheme, device",
                     stored(arrived) if hasattr(arrived, "tensor") else repr(arrived)[:120]))
        seen.append(("bit-identical to what was quantized on cpu:0",
                     hasattr(arrived, "tensor") and arrived.tensor.bit_equal(source.tensor)))
        seen.append(("read back on cpu:1, dequantized to f32",
                     rt.read(own(rt.dequantize(moved))).tolist()))
    return seen


@capstone.visible("every piece is yours (the ones listed are still the model's)", hint=1)
def _(sub: Subject) -> Observation:
    return [("pieces your file leaves out (the model's runs in their place)", missing(sub))]


@capstone.visible(f"the tour's flow: your x as {SCHEME}, cpu:0 -> cpu:1 natively", hint=2)
def _(sub: Subject) -> Observation:
    return tour_flow(sub, *flows(sub.params)[0][1:])


@capstone.visible("every piece at work on your values: block scales in UE4M3, a global scale "
                  "and u32 words on the cubecl profile", hint=2)
def _(sub: Subject) -> Observation:
    return tour_flow(sub, *flows(sub.params)[1][1:])


@capstone.hidden("seeded random tensors and schemes on the flex, ndarray and cubecl profiles")
def _(sub: Subject) -> Observation:
    rng = random.Random(124)
    values = {"flex": ("q8s", "q8f", "q4s", "q2f"), "ndarray": ("q8s", "q8f"),
              "cubecl": ("q8s", "q4s", "q2s")}
    seen: Observation = []
    for case in range(9):
        profile = sorted(values)[case % 3]
        level = rng.choice(("", ":block=16", ":block=16:scale=f16",
                            ":block=16:scale=ue4m3:global=f32"))
        scheme = rng.choice(values[profile]) + level + (
            ":store=packed-u32" if profile == "cubecl" else "")
        x = np.random.default_rng(case).normal(size=(2, 32)).astype(F32)
        seen += [(f"hidden case {case}, {scheme} on {profile}: {label}", value)
                 for label, value in tour_flow(sub, x, scheme, profile)]
    return seen


@capstone.hidden("the arrived tensor owns its values and its scales", hint=2)
def _(sub: Subject) -> Observation:
    with router(sub, "flex") as r:
        rt = r.rt
        q = r.own(rt.quantize(r.own(rt.tensor(np.linspace(-1, 1, 16, dtype=F32), "cpu:0",
                                                "f32")), "q8s:block=4:scale=f16"))
        keep = r.own(rt.clone(q))
        moved = rt.to_device(q, "cpu:1", policy="native")
        one, other = rt.handle("cpu:1", moved.id).tensor, rt.handle("cpu:0", keep.id).tensor
        shares = bool(np.shares_memory(one.values, other.values)
                      or np.shares_memory(one.scales, other.scales))
    return [("the copy on cpu:1 shares memory with the source's", shares)]


@capstone.hidden("a tensor already on the target device is registered as it is", hint=2)
def _(sub: Subject) -> Observation:
    """Burn's router never copies a tensor onto the device it is on: `float_to_device` returns
    the tensor itself when `tensor.client.device() == device` (crates/burn-router/src/ops/
    tensor.rs:89-94; int_tensor.rs:45-48 and bool_tensor.rs:84-87 alike). The arm, handed a
    primitive already on its backend's device, registers that primitive: no copy, no bytes."""
    rt = Runtime(["cpu:0@cubecl"])
    q = rt.quantize(rt.tensor(flow_values(1, 2), "cpu:0@cubecl", "f32"), FLOW_SCHEME)
    primitive = rt.handle("cpu:0@cubecl", q.id)
    backend = make_backend(primitive.device)  # a backend of the device the tensor is on
    handles = HandleContainer("cpu:0")
    arm = model_register if sub.is_model else sub.function(ARM)
    arm(backend, handles, TensorId(7), primitive)
    registered = handles.get_handle_ref(TensorId(7))
    return [("register_quantized onto the device q is on: ids registered",
             [int(i) for i in handles.handle_ids()]),
            ("the handle registered under 7 is q itself (not a copy)", registered is primitive),
            ("bytes copied by the backend", backend.bytes_copied)]
