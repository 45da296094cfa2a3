"""build-1: burn-ir's HandleContainer, written by you. Read crates/burn-ir/src/handle.rs:7-226
(Burn 2c06be3): the struct (7-10), fork (22-36), Handle (47-54) and the impl (56-226)."""

from typing import Any

from routerlab.core.base.errors import BurnPanic  # noqa: F401 (Burn's panics)
from routerlab.core.router.ir import (  # noqa: F401 (the value types the methods take)
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    TensorId,
    TensorIr,
    TensorStatus,
)


class HandleContainer:
    """One device session's handles, keyed by tensor id (handle.rs:7-10)."""

    def __init__(self) -> None:
        # TODO: the map and Burn's counter.
        raise NotImplementedError("HandleContainer")

    def register_handle(self, id: TensorId, handle: Any) -> None:
        """handle.rs:66-68."""
        raise NotImplementedError("register_handle")

    def has_handle(self, id: TensorId) -> bool:
        """handle.rs:71-73."""
        raise NotImplementedError("has_handle")

    def get_handle_ref(self, id: TensorId) -> Any | None:
        """handle.rs:76-84."""
        raise NotImplementedError("get_handle_ref")

    def get_handle(self, id: TensorId, status: TensorStatus) -> Any:
        """handle.rs:93-112. The visible checks: ReadOnly, ReadWrite, a second ReadWrite, NotInit
        and a missing id, each compared with the model (Burn's panic texts word for word)."""
        raise NotImplementedError("get_handle")

    def get_tensor_handle(self, tensor: TensorIr) -> Any:
        """handle.rs:115-120 (the model returns the handle itself, not a TensorHandle)."""
        raise NotImplementedError("get_tensor_handle")

    def remove_handle(self, id: TensorId) -> Any | None:
        """handle.rs:198-200."""
        raise NotImplementedError("remove_handle")

    def free(self, tensor: TensorIr) -> None:
        """handle.rs:203-211."""
        raise NotImplementedError("free")

    def num_handles(self) -> int:
        """handle.rs:214-216."""
        raise NotImplementedError("num_handles")

    def handle_ids(self) -> list[TensorId]:
        """handle.rs:223-225."""
        raise NotImplementedError("handle_ids")

    def fork(self) -> "HandleContainer":
        """handle.rs:24-35."""
        raise NotImplementedError("fork")
