"""build-6: burn-router's `RouterClient` (crates/burn-router/src/client/base.rs:20-60) and
`float_from_data` (crates/burn-router/src/ops/tensor.rs:20-31), against the model's client on a
recording FIFO."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core import (
    AddOp,
    DType,
    RouterTensor,
    TensorId,
    TensorIr,
)
from ...core.base.data import TensorData
from ...core.base.devices import parse_device
from ...core.router.client import RouterClient
from .base import CheckFailure, Observation, Subject, Suite
from .build_common import traced
from .build_tensors import count, ir_data

# crates/burn-router/src/client/base.rs:20-60 (register_op, register, create_empty_handle,
# register_tensor_data), crates/burn-router/src/ops/tensor.rs:20-31 (float_from_data)


class Fifo:
    """A device session as a client sees it: a FIFO it submits to (what reaches it is recorded,
    in order) on one device. The model's client also asks it whether it is alive."""

    def __init__(self, device: str) -> None:
        self.device = parse_device(device)
        self.ops: list[Any] = []
        self.journal = self
        self.active = False

    def submit(self, op: Any, reply: Any = None) -> None:
        self.ops.append(op)

    def check_alive(self) -> None:
        """A test session never ends."""

    def run(self) -> None:
        """The model's server runs its sessions here; a test FIFO runs nothing."""


def model_client(session: Fifo, new_id: Callable[[], TensorId]) -> RouterClient:
    """The model's `RouterClient` in the learner's signature (the FIFO is its own server)."""
    return RouterClient(session, session, new_id)  # type: ignore[arg-type]


def model_from_data(client: RouterClient, data: TensorData) -> RouterTensor:
    """`float_from_data` (ops/tensor.rs:20-31): the model's client sends the Init itself."""
    return client.register_tensor_data(data)


clients = Suite("build-6")
clients.model(RouterClient=model_client, float_from_data=model_from_data)


def fifo_data(session: Fifo) -> list[Any]:
    """What reached a session since the last look, in order: each op's kind and its irs."""
    ops = [[type(op).__name__, [ir_data(ir) for ir in (*op.inputs(), *op.outputs())]]
           for op in session.ops]
    session.ops.clear()
    return ops


def counter(start: int) -> Callable[[], TensorId]:
    """One id counter, as the runtime hands every client the same one."""
    next_id = iter(range(start, start + 10_000))
    return lambda: TensorId(next(next_id))


def tensor_data(t: Any) -> list[Any]:
    return [int(t.id), [int(d) for d in t.shape], str(t.dtype), count(t)]


def _clients(sub: Subject, devices: tuple[str, ...], start: int) -> dict[str, Any]:
    new_id = counter(start)
    made = {d: sub.function("RouterClient")(Fifo(d), new_id) for d in devices}
    for client in made.values():
        for method in ("register_op", "register", "create_empty_handle", "register_tensor_data"):
            if not callable(getattr(client, method, None)):
                raise CheckFailure(f"your RouterClient has no method `{method}`; keep the names "
                                   "the starter gives", hint=1)
    return made


def upload(sub: Subject, client: Any, values: list[float]) -> Any:
    data = TensorData.from_array(np.asarray(values, dtype=np.float32))
    return sub.function("float_from_data")(client, data)


@clients.visible("ids come from one counter for every device; float_from_data registers the "
                 "data, then Init", hint=2)
@traced
def _(sub: Subject) -> Observation:
    c = _clients(sub, ("cpu:0", "cpu:1"), sub.param("start"))
    seen: Observation = []
    for n, device in enumerate(("cpu:0", "cpu:1", "cpu:0")):
        t = upload(sub, c[device], [float(n), 1.0, 2.0])
        seen.append((f"float_from_data on {device}: the tensor (id, shape, dtype, count), what "
                     "reached cpu:0's and cpu:1's FIFO",
                     [tensor_data(t), fifo_data(c["cpu:0"].session),
                      fifo_data(c["cpu:1"].session)]))
    return seen


@clients.visible("register: one new tensor per output, then the op reaches the FIFO", hint=2)
@traced
def _(sub: Subject) -> Observation:
    c = _clients(sub, ("cpu:0",), sub.param("start"))["cpu:0"]
    x = upload(sub, c, [1.0, 2.0])
    fifo_data(c.session)
    keep = x.clone()
    out = TensorIr.uninit(c.create_empty_handle(), (2,), DType.F32)
    made = c.register(AddOp(keep.into_ir(), x.into_ir(), out))
    return [("register(add(x.clone(), x)): the tensors it returned", [tensor_data(t)
                                                                      for t in made]),
            ("what reached the FIFO", fifo_data(c.session))]


@clients.visible("the last Drop reaches the FIFO after every op before it", hint=2)
@traced
def _(sub: Subject) -> Observation:
    c = _clients(sub, ("cpu:0",), sub.param("start"))["cpu:0"]
    x = upload(sub, c, [1.0])
    y = x.clone()
    x.drop()
    z = upload(sub, c, [2.0])
    y.drop()
    z.drop()
    return [("what reached the FIFO, in order", fifo_data(c.session))]


@clients.hidden("seeded random uploads, adds and drops on three devices")
@traced
def _(sub: Subject) -> Observation:
    rng = random.Random(3010)
    seen: Observation = []
    for case in range(30):
        devices = ("cpu:0", "cpu:1", "cpu:2")
        c = _clients(sub, devices, case)
        live: list[tuple[str, Any]] = []
        for step in range(rng.randint(2, 8)):
            device = rng.choice(devices)
            mine = [t for d, t in live if d == device]
            what = rng.choice(("upload", "upload", "add", "drop")) if mine else "upload"
            if what == "upload":
                live.append((device, upload(sub, c[device], [float(step)] * 3)))
                result: Any = tensor_data(live[-1][1])
            elif what == "add":
                lhs = mine[0]
                rhs = lhs.clone()
                out = TensorIr.uninit(c[device].create_empty_handle(), (3,), DType.F32)
                (made,) = c[device].register(AddOp(rhs.into_ir(), lhs.into_ir(), out))
                live = [(d, t) for d, t in live if t is not lhs] + [(device, made)]
                result = tensor_data(made)
            else:
                victim = mine[0]
                victim.drop()
                live = [(d, t) for d, t in live if t is not victim]
                result = None
            seen.append((f"case {case}, step {step}: {what} on {device}",
                         [result, [fifo_data(c[d].session) for d in devices]]))
    return seen
