from typing import Any

from routerlab.core.base.errors import BurnPanic, MissingHandleError  # noqa: F401 (for the TODO)
from routerlab.core.router.ir import TensorId, TensorStatus


def get_handle(handles: dict[int, Any], tensor_id: TensorId, status: TensorStatus) -> Any:
    """Take the handle of `tensor_id` for one use with `status` (HandleContainer::get_handle)."""
    # TODO: a missing id panics; ReadOnly keeps the entry; ReadWrite removes it; NotInit panics.
    raise NotImplementedError("get_handle")
