"""`SessionPort`: what the client may ask of one device's session, in-process or served.

A client holds one port per device and asks it nothing else: submit a task (fire-and-forget, as
Burn's `register_op`; a read carries a `Reply`), check that the worker is alive, and, for the
faces, look at the registry and the backend's copy counters. The in-process `Session`
(`session.py`) answers from its interpreter; a served device's `RemoteSession`
(`remote/deployment.py`) answers over its peer's connection. The transfer policy is not a
question for the session: the client decides it once (`Runtime` fills it into the
`TransferRequest`), and every session reads it from the request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..base.devices import Device
    from ..base.view import TableView
    from .ir import OperationIr


class Reply:
    """Where a `ReadOp` leaves its `TensorData` (Burn answers by request id)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: Any = None


class SessionPort(Protocol):
    """One device's session as the client sees it (see the module)."""

    device: Device
    label: str
    ended: str | None
    """Why the worker is gone (a panic, a hang, a lost peer), or None while it runs."""
    parked_on: int | None
    """The transfer id the head task waits for, or None."""

    def check_alive(self) -> None:
        """Raise `SessionEnded` if the worker is gone."""

    def submit(self, op: OperationIr, reply: Reply | None = None) -> None:
        """Enqueue one task; a `ReadOp`'s data arrives in `reply` once the sessions run."""

    def handle_ids(self) -> list[int]:
        """The ids the registry holds, sorted."""

    def handle(self, tensor_id: int) -> Any:
        """The primitive registered under `tensor_id` (None if none), looked at without
        touching the registry (`get_handle_ref`, `crates/burn-ir/src/handle.rs:76`)."""

    def counters(self) -> tuple[int, int]:
        """The backend's `(bytes_copied, copies)` so far."""

    def view(self) -> TableView:
        """The registry as a table."""
