"""build-3: the interpreter's transfer arms and the same-peer rendezvous, written by you. Read
crates/burn-router/src/interpreter.rs:88-127, crates/burn-remote/src/server/local_comm.rs:14-79
and crates/burn-remote/src/server/worker.rs:280-310 (Burn 2c06be3).
The visible checks: the float, int and bool arms (a shared use copied, the last use moved); the
quantized arm, bit for bit; a move onto the device the tensor is on; the rendezvous both ways."""

from typing import Any  # noqa: F401 (your HandleContainer's annotations)

import numpy as np  # noqa: F401 (the quantized arm copies arrays)

from routerlab.core.base.dtypes import DType  # noqa: F401 (the storage dtype of stored values)
from routerlab.core.base.errors import BurnPanic  # noqa: F401 (your HandleContainer's panics)
from routerlab.core.fix.qtensor import QPrimitive  # noqa: F401 (the quantized handle)
from routerlab.core.router.backend import Backend, HandleKind, Kind, Primitive, kind_of  # noqa: F401
from routerlab.core.router.ir import (  # noqa: F401 (your HandleContainer uses the statuses)
    READ_ONLY,
    READ_WRITE,
    TensorId,
    TensorIr,
    TensorStatus,
)

# Your HandleContainer from build-1 goes here: the interpreter below keeps its handles in it.


class TensorInterpreter:
    """One device session's interpreter, reduced to a same-peer move's two halves."""

    def __init__(self, backend: Backend) -> None:
        # TODO: backend, device, handles.
        raise NotImplementedError("TensorInterpreter")

    def get_tensor(self, tensor: TensorIr) -> HandleKind:
        """interpreter.rs:88-100, with the arm Burn leaves as todo!(). Checked: the kind in
        transit and the source registry after a shared and a last use, for every kind."""
        raise NotImplementedError("get_tensor")

    def register_tensor_to_device(self, id: TensorId, tensor: HandleKind) -> None:
        """interpreter.rs:108-127, with the arm Burn leaves as todo!(). Checked: what arrived,
        bit for bit, the copies the target's backend counted, and a move onto the same device."""
        raise NotImplementedError("register_tensor_to_device")


class LocalComm:
    """The rendezvous of one server (local_comm.rs:33-79): either side may arrive first."""

    def __init__(self) -> None:
        raise NotImplementedError("LocalComm")

    def expose_tensor_local(self, source: TensorInterpreter, tensor: TensorIr,
                            transfer_id: int) -> None:
        """The source's task (worker.rs:280-295)."""
        raise NotImplementedError("expose_tensor_local")

    def register_tensor_local(self, target: TensorInterpreter, transfer_id: int,
                              new_id: TensorId) -> None:
        """The target's task (worker.rs:296-310). In one Python thread nothing can wait: when
        nothing was exposed yet, remember the target, and let the expose complete it."""
        raise NotImplementedError("register_tensor_local")

    def pending(self) -> int:
        """Transfers one side of which has not come yet. Checked after every step."""
        raise NotImplementedError("pending")
