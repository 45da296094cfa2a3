"""build-6: burn-router's RouterClient, written by you. Read crates/burn-router/src/client/
base.rs:20-60 and crates/burn-router/src/ops/tensor.rs:20-31 (Burn 2c06be3).
The visible checks: ids from one counter and float_from_data's register then Init; register's
outputs before the op reaches the FIFO; the last Drop after every op before it."""

from collections.abc import Callable
from typing import Any

from routerlab.core.base.data import TensorData
from routerlab.core.base.errors import UseAfterDropError  # noqa: F401 (your RouterTensor's)
from routerlab.core.router.ir import (  # noqa: F401 (the ops and irs a client builds)
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    DropOp,
    InitOp,
    OperationIr,
    RegisterDataOp,
    TensorId,
    TensorIr,
    TensorStatus,
)

# Your RouterTensor from build-2 goes here: register makes them.


class RouterClient:
    """One device's client (base.rs:20-60): it names tensors and submits ops, in order."""

    def __init__(self, session: Any, new_id: Callable[[], TensorId]) -> None:
        # TODO: the session, its device and the shared counter.
        raise NotImplementedError("RouterClient")

    def create_empty_handle(self) -> TensorId:
        """base.rs:52. Checked: the ids of uploads on two devices, and of an op's output."""
        raise NotImplementedError("create_empty_handle")

    def register_op(self, op: OperationIr) -> None:
        """base.rs:26. Checked: what reaches the FIFO, in order."""
        raise NotImplementedError("register_op")

    def register(self, op: OperationIr) -> list[Any]:
        """base.rs:30-40. Checked: the tensors returned for an add, and the FIFO."""
        raise NotImplementedError("register")

    def register_tensor_data(self, data: TensorData) -> Any:
        """base.rs:54: the upload, a RegisterDataOp under a fresh id."""
        raise NotImplementedError("register_tensor_data")


def float_from_data(client: RouterClient, data: TensorData) -> Any:
    """ops/tensor.rs:20-31. Checked: each upload's tensor and the two ops it sends."""
    raise NotImplementedError("float_from_data")
