"""Server-side custom ops: the one extension point of a burn-remote server.

A backend extension builds `OperationIr::Custom(CustomOpIr { id, inputs, outputs, scalars })` on
the client, and the router registers it like any op. The server's interpreter looks the id up in
its `CustomOpRegistry` and calls the handler, which reads the inputs from the registry and
registers the outputs (`crates/burn-router/src/interpreter.rs:2107-2108`); an id with no handler
panics on the session worker, which ends the session (`interpreter.rs:2109-2113`). The registry
is the server's: `RemoteServerBuilder::custom_op(id, handler)` adds to it before `start`
(`crates/burn-remote/src/server/builder.rs:110-126`; the registry, where the same id registered
twice keeps the last handler, `crates/burn-router/src/custom_op.rs:15-67`).

With `fusion`, the router's fuser normally ships a custom op inside a graph; left unfused (a
one-op segment), burn-fusion runs it through `CustomOperation`, which maps the fused ids to the
router's, mints the outputs and registers the op (`crates/burn-router/src/fusion.rs:270-343`).
RouterLab's client has one id space, so that mapping is the identity, and the op is registered as
it is built.

In RouterLab the registry is a value the `Runtime` is built with (`Runtime(custom_ops=...)`),
as the other extension points are, and every in-process interpreter gets it. A served peer runs
its own interpreters with its own registry (the example handlers, core/router/custom_examples.py);
the op crosses the wire as data (core/remote/codec.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..base.dtypes import AnyDType
from ..base.errors import BurnPanic, RouterLabError
from .ir import OperationIr, TensorIr
from .tensor import RouterTensor

if TYPE_CHECKING:
    from .client import RouterClient

SRC_MISSING_HANDLER = "crates/burn-router/src/interpreter.rs:2107-2114"

CustomHandler = Callable[[Any, "CustomOp"], None]
"""`handler(interpreter, op)`: read `op.ins` through `interpreter.handles`, compute with
`interpreter.backend`, register each of `op.outs` (Burn's `(handles, ir, device)`)."""


def missing_handler_panic(op_id: str) -> BurnPanic:
    """The server's panic for an id no handler was registered for, with Burn's text."""
    return BurnPanic(f"No custom-op handler registered for `{op_id}`. Register one on the server "
                     "via `CustomOpRegistry`/the server builder before starting it.",
                     SRC_MISSING_HANDLER)


@dataclass(frozen=True)
class CustomOp(OperationIr):
    """`OperationIr::Custom(CustomOpIr)`: an id, its inputs and outputs, and its scalars."""

    id: str
    ins: tuple[TensorIr, ...]
    outs: tuple[TensorIr, ...]
    scalars: tuple[float, ...] = ()
    name: ClassVar[str] = "custom"

    def inputs(self) -> list[TensorIr]:
        return list(self.ins)

    def outputs(self) -> list[TensorIr]:
        return list(self.outs)

    def traced_id(self) -> int | None:
        first = self.outs or self.ins
        return int(first[0].id) if first else None

    def describe(self) -> str:
        ins = ", ".join(f"#{t.id:d} {t.status._value_}" for t in self.ins)
        outs = ", ".join(f"#{t.id:d}" for t in self.outs)
        return f"custom {self.id!r}({ins}) -> {outs}"


class CustomOpRegistry(Mapping[str, CustomHandler]):
    """Burn's `CustomOpRegistry`: handlers by id (`crates/burn-router/src/custom_op.rs:15-67`).
    `custom_op` adds one and returns the registry, as the server builder chains it."""

    def __init__(self, handlers: Mapping[str, CustomHandler] | None = None) -> None:
        self._handlers: dict[str, CustomHandler] = {}
        for op_id, handler in (handlers or {}).items():
            self.custom_op(op_id, handler)

    def custom_op(self, op_id: str, handler: CustomHandler) -> CustomOpRegistry:
        if not isinstance(op_id, str) or not op_id:
            raise RouterLabError(f"a custom op's id is a non-empty string, got {op_id!r}")
        if not callable(handler):
            raise RouterLabError(f"custom op {op_id!r}: its handler must be callable")
        self._handlers[op_id] = handler
        return self

    def __getitem__(self, op_id: str) -> CustomHandler:
        return self._handlers[op_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._handlers)

    def __len__(self) -> int:
        return len(self._handlers)


def run_custom(interpreter: Any, registry: Mapping[str, CustomHandler] | None,
               op: CustomOp) -> None:
    """The interpreter's `Custom` arm: the handler if the server registered one, else Burn's
    panic (which ends the session, as any panic on the worker does)."""
    handler = (registry or {}).get(op.id)
    if handler is None:
        raise missing_handler_panic(op.id)
    handler(interpreter, op)


def build_custom(client: RouterClient, op_id: str, inputs: Sequence[RouterTensor],
                 outputs: Sequence[tuple[Sequence[int], AnyDType]],
                 scalars: Sequence[float] = ()) -> list[RouterTensor]:
    """The client side: consume the inputs, mint one tensor per declared output (shape, dtype),
    then register the op (`RouterClient::register_op`), as an extension's client code does."""
    irs = tuple(t.into_ir() for t in inputs)
    outs = tuple(TensorIr.uninit(client.create_empty_handle(), tuple(int(d) for d in shape),
                                 dtype) for shape, dtype in outputs)
    tensors = [RouterTensor(o.id, o.shape, o.dtype, client) for o in outs]
    client.register_op(CustomOp(op_id, irs, outs, tuple(float(s) for s in scalars)))
    return tensors
