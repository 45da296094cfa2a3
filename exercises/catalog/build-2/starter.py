"""build-2: burn-router's RouterTensor, written by you. Read crates/burn-router/src/tensor.rs:
11-158 (Burn 2c06be3): the struct (11-18), new (52-60), into_ir (67-87), to_ir_out (89-96),
status (98-104), Clone (122-134) and Drop (136-157).
The visible checks: clones share one count and a clone sends nothing; only the last reference
sends Drop; an op's output is NotInit and a consumed or dropped reference is refused."""

from typing import Any

from routerlab.core.base.errors import UseAfterDropError  # noqa: F401 (a consumed reference)
from routerlab.core.router.ir import (  # noqa: F401 (the value types a tensor builds)
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    DropOp,
    TensorId,
    TensorIr,
    TensorStatus,
)


class RouterTensor:
    """One client-side reference to a tensor; its clones share one count (tensor.rs:11-18)."""

    def __init__(self, id: TensorId, shape: tuple[int, ...], dtype: Any, client: Any) -> None:
        """tensor.rs:52-60. `client.register_op(op)` is the one client method a tensor uses."""
        # TODO: the fields, and a count that every clone will share.
        raise NotImplementedError("RouterTensor")

    @property
    def count(self) -> int:
        """How many live references share this tensor's count."""
        raise NotImplementedError("count")

    def can_mut(self) -> bool:
        """tensor.rs:38-42."""
        raise NotImplementedError("can_mut")

    def clone(self) -> "RouterTensor":
        """tensor.rs:122-134. Checked: the counts of both references, nothing sent."""
        raise NotImplementedError("clone")

    def into_ir(self) -> TensorIr:
        """tensor.rs:67-87 and the Drop that follows it in Rust. Checked: the ir of each use of a
        tensor and its clones, the count left, the ops sent."""
        raise NotImplementedError("into_ir")

    def to_ir_out(self) -> TensorIr:
        """tensor.rs:89-96."""
        raise NotImplementedError("to_ir_out")

    def drop(self) -> None:
        """tensor.rs:136-157. Checked: the ops sent when one of two and then the last reference
        is dropped."""
        raise NotImplementedError("drop")
