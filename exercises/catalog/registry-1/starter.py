from typing import Any

from routerlab.core.base.errors import BurnPanic, MissingHandleError  # noqa: F401 (Burn's panics)
from routerlab.core.router.ir import TensorId, TensorStatus


def get_handle(handles: dict[int, Any], tensor_id: TensorId, status: TensorStatus) -> Any:
    """Take the handle of `tensor_id` for one use with `status` (HandleContainer::get_handle).

    Read: crates/burn-ir/src/handle.rs:93-113. `handles` is the registry's dict, keyed by
    TensorId as the router's is.
    The visible checks: a ReadOnly get, a ReadWrite get, a missing id, a NotInit status, and an
    add of a tensor and its clone in a real runtime whose registries read through your function.
    """
    # TODO
    raise NotImplementedError("get_handle")
