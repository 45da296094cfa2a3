"""`RouterTensor`: the client's view of one tensor, and the clone count that fixes its statuses.

All clones of one logical tensor share one `count` cell (Burn's `Arc<AtomicU32>`,
`crates/burn-router/src/tensor.rs`). The count decides the status of every use: ReadWrite when
`count <= 1` (the last reference, so the server may consume the handle), ReadOnly otherwise.

Rust runs `Drop` deterministically when a value goes out of scope or is moved into an op; Python
has no such guarantee, so the model makes both explicit and never relies on the garbage
collector: `into_ir()` consumes the object (an op input), `drop()` ends it (or a `with` block
does). Touching a consumed or dropped object raises `UseAfterDropError`, the run-time stand-in for
Rust's borrow checker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from ..base.dtypes import AnyDType
from ..base.errors import UseAfterDropError
from .ir import READ_ONLY, READ_WRITE, DropOp, TensorId, TensorIr, TensorStatus

if TYPE_CHECKING:
    from ..base.devices import Device
    from .client import RouterClient


class Count:
    """The shared clone counter."""

    __slots__ = ("value",)

    def __init__(self, value: int = 1) -> None:
        self.value = value


def status_for(count: int) -> TensorStatus:
    """`RouterTensor::status` (tensor.rs:98): the last reference is ReadWrite."""
    return READ_WRITE if count <= 1 else READ_ONLY


class RouterTensor:
    """One client-side reference to a tensor living in a device session."""

    __slots__ = ("id", "shape", "dtype", "held", "client", "_count", "_alive")

    def __init__(self, id: TensorId, shape: tuple[int, ...], dtype: AnyDType,
                 client: RouterClient, count: Count | None = None,
                 held: AnyDType | None = None) -> None:
        self.id = id
        self.shape = tuple(shape)
        self.dtype = dtype
        """The client's dtype, as Burn's IR carries it: for a quantize output, the scheme asked
        for (`crates/burn-ir/src/builder.rs:1348-1356`)."""
        self.held = dtype if held is None else held
        """What the device's primitive holds: a backend may store another layout than the one
        asked for (Flex stores Native, `crates/burn-flex/src/ops/qtensor.rs:141,200`), and a
        move may repack. The guard plans a move from it."""
        self.client = client
        self._count = count if count is not None else Count()
        self._alive = True

    @property
    def device(self) -> Device:
        return self.client.device

    @property
    def count(self) -> int:
        """How many live client references share this tensor."""
        return self._count.value

    @property
    def alive(self) -> bool:
        return self._alive

    def can_mut(self) -> bool:
        return self._count.value <= 1

    def clone(self) -> RouterTensor:
        """`Clone` (tensor.rs:123): same id, same count cell, count + 1. Nothing is sent."""
        if not self._alive:  # `check`, without its call: every op's inputs pass here
            self._refuse()
        self._remember()
        self._count.value += 1
        return RouterTensor(self.id, self.shape, self.dtype, self.client, self._count, self.held)

    def into_ir(self) -> TensorIr:
        """Consume this reference as an op input (tensor.rs:67).

        The status comes from the count. For ReadWrite the count is bumped first, so the drop
        that ends `into_ir` sees 2 and sends nothing: a last use never also emits a `Drop`. Net,
        the bump and that drop cancel out, and a ReadOnly use gives its one reference back: so
        `into_ir` never sends anything, and only a shared count changes (by one).
        """
        if not self._alive:  # `check`, without its call: every op's inputs pass here
            self._refuse()
        self._remember()
        status = status_for(self._count.value)
        if status is READ_ONLY:
            self._count.value -= 1
        self._alive = False
        return TensorIr(self.id, self.shape, status, self.dtype)

    def drop(self) -> None:
        """End this reference (tensor.rs:137): the last one sends `Drop(ReadWrite)`. Outside a
        runtime step the sessions are run at once, so no task is left queued."""
        self.check()
        if self._count.value <= 1:
            self.client.session.check_alive()
        self._remember()
        self._alive = False
        self._release()
        if not self.client.journal.active:
            self.client.sync()

    def _release(self) -> None:
        previous = self._count.value
        self._count.value = previous - 1
        if previous <= 1:
            self.client.register_op(DropOp(TensorIr(self.id, self.shape, READ_WRITE, self.dtype)))

    def check(self) -> None:
        """Raise UseAfterDropError if this reference was dropped or consumed."""
        if not self._alive:
            self._refuse()

    def _refuse(self) -> NoReturn:
        raise UseAfterDropError(
            f"tensor #{int(self.id)} on {self.device} was already dropped or consumed by an "
            "op; clone() it before a use that should keep it"
        )

    def _remember(self) -> None:
        """Let a failing operation restore this reference and its count exactly."""
        journal = self.client.journal
        if journal.active:
            journal.on_rollback(self._restore, self._alive, self._count.value)

    def _restore(self, alive: bool, count: int) -> None:
        self._alive = alive
        self._count.value = count

    def __enter__(self) -> RouterTensor:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._alive:
            self.drop()

    def __repr__(self) -> str:
        state = "" if self._alive else ", consumed"
        return (f"RouterTensor {{ id: {self.id!r}, shape: {list(self.shape)}, dtype: {self.dtype}, "
                f"device: {self.device}, count: {self._count.value}{state} }}")
