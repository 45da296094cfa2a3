"""CubeCL's device queue: the closures a burn-remote client submits wait here before its service
ever sees them.

burn-remote's client does not call its service directly. Every fire-and-forget call
(`register_op`, `register_tensor_data`, `register_alias`, `seed`, the graph calls) is
`self.handle.submit(...)`, a closure queued on the device's CubeCL `DeviceHandle`
(`crates/burn-remote/src/client/runner.rs:29, 64-65, 82, 91-92, 112-120`;
`crates/burn-remote/src/client/base.rs:11`). With `std` and multi-threading that handle is
`ChannelDeviceHandle` (cubecl-common `src/device/handle/mod.rs:18-19` at CubeCL 4834896, the
revision Burn pins), whose `submit` enqueues without flushing (`channel.rs:92-95`). The device's
runner thread takes the buffer only once `CHANNEL_MAX_TASK` (32) closures are queued
(`channel.rs:845, 1080-1086`), or when a caller pads it with no-ops: a blocking call
(`submit_blocking` sends its shim with a flush, `channel.rs:188`) or `flush_queue`
(`channel.rs:97-100, 948-951`), which burn-remote calls around every move because the runner
"wouldn't drain it until 32 ops accumulated" (`runner.rs:464-469`). Only when the runner runs a
closure does the service's `OutgoingBatch` (`batch.py`) see its task.

So this queue decides *when* a task reaches the service; the batch then decides which frame it
leaves in. Why model both: the frames come out the same, but the moment is the closure queue's.
"""

from __future__ import annotations

from ..base.choices import Choice
from .batch import WireTask

CHANNEL_MAX_TASK = 32
"""Closures the runner waits for before it takes the buffer (cubecl-common
`src/device/handle/channel.rs:845`)."""


class Drain(Choice, noun="drain reason"):
    """Why the device runner ran the queued closures."""

    FULL = "full"
    """32 closures were queued (`channel.rs:1080-1086`)."""
    WAIT = "wait"
    """A call that waits for its answer padded the queue (`submit_blocking`, `channel.rs:188`)."""
    MOVE = "move"
    """A move called `flush_queue` after its transfer task (`runner.rs:429-441, 461-480`)."""


DRAIN_WHY = {Drain.FULL: "{n} closures filled the queue", Drain.WAIT: "a call waits for an answer",
             Drain.MOVE: "a move called flush_queue"}


class ClosureQueue:
    """One device's closure queue on the client: `submit` says True once it holds
    `CHANNEL_MAX_TASK` closures, and `take` hands them, in order, to the runner."""

    def __init__(self, capacity: int = CHANNEL_MAX_TASK) -> None:
        if capacity < 1:
            raise ValueError("a closure queue holds at least 1 closure")
        self.capacity = capacity
        self.closures: list[WireTask] = []

    def submit(self, task: WireTask) -> bool:
        """Queue the closure that will hand `task` to the service; True once the queue is full."""
        self.closures.append(task)
        return len(self.closures) >= self.capacity

    def take(self) -> list[WireTask]:
        """What the runner runs now, in submission order (the no-op padding runs nothing)."""
        closures, self.closures = self.closures, []
        return closures


def describe_drain(device: str, reason: Drain, tasks: tuple[WireTask, ...]) -> str:
    """One line for the trace: which closures the runner ran on `device`, and why now."""
    why = DRAIN_WHY[reason].format(n=len(tasks))
    names = ", ".join(map(str, tasks))
    return f"{device}'s runner ran {len(tasks)} closure(s) [{names}]: {why}"
