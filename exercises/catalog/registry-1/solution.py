"""registry-1 reference solution: Burn's `HandleContainer::get_handle` (handle.rs:93-113)."""

from typing import Any

from routerlab.core.errors import BurnPanic, MissingHandleError
from routerlab.core.ir import TensorId, TensorStatus


def get_handle(handles: dict[int, Any], tensor_id: TensorId, status: TensorStatus) -> Any:
    """Take the handle of `tensor_id` for one use with `status` (HandleContainer::get_handle)."""
    if tensor_id not in handles:
        raise MissingHandleError(tensor_id)  # "Should have handle for tensor TensorId { .. }"
    if status is TensorStatus.READ_ONLY:
        return handles[tensor_id]  # Burn puts a clone back; the entry survives the op
    if status is TensorStatus.READ_WRITE:
        return handles.pop(tensor_id)  # the last use moves the handle out: this is the free
    raise BurnPanic(f"Cannot get uninitialized tensor {tensor_id!r}. Tensor exist but with wrong "
                    "status", "crates/burn-ir/src/handle.rs:104-106")
