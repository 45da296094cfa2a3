"""The client's outgoing batch: tasks wait in it until a threshold sends them as one frame.

burn-remote's `OutgoingBatch` (`crates/burn-remote/src/client/service/batch.rs:21-67`) counts the
tasks it holds and the tensor-data bytes they carry; `push` says "flush" once either reaches its
threshold (`batch.rs:52-56`), and only a `RegisterTensor` carries data bytes (`batch.rs:31-36`).
The thresholds are Burn's defaults, 4 tasks and 1 MiB (`crates/burn-std/src/config/remote.rs:
38-44`), read by the service when it is built (`crates/burn-remote/src/client/service.rs:110-114`).
Batching is wire-level only: every task keeps its own stream id (`batch.rs:19-20`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FLUSH_THRESHOLD = 4
"""Tasks that fill a batch (`default_flush_threshold`, burn-std/src/config/remote.rs:38-40)."""

FLUSH_BYTES_THRESHOLD = 1024 * 1024
"""Buffered data bytes that fill a batch (`default_flush_bytes_threshold`, remote.rs:42-44)."""


@dataclass(frozen=True)
class WireTask:
    """One task on its way to the server: Burn's task name (`RegisterOperation`,
    `RegisterTensor`, `ReadTensor`, ...), what it is about (an op's name, a tensor), the client
    stream it was called on, the data bytes it carries, and the step that sent it. A served
    client's task also carries the message it is on the real wire (`payload`,
    core/remote/link.py); the model's carry none, and two tasks compare without it."""

    kind: str
    label: str
    stream: int = 0
    nbytes: int = 0
    step: int = 0
    payload: Any = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.kind}({self.label})"


class OutgoingBatch:
    """Burn's `OutgoingBatch`: tasks and a running sum of their data bytes (batch.rs:21-67)."""

    def __init__(self, threshold: int = FLUSH_THRESHOLD,
                 bytes_threshold: int = FLUSH_BYTES_THRESHOLD) -> None:
        if threshold < 1 or bytes_threshold < 1:
            raise ValueError("a batch's thresholds are at least 1")
        self.tasks: list[WireTask] = []
        self.threshold = threshold
        self.bytes = 0
        self.bytes_threshold = bytes_threshold

    def push(self, task: WireTask) -> bool:
        """Append `task`; True once either threshold is reached (batch.rs:52-56)."""
        self.bytes += task.nbytes if task.kind == "RegisterTensor" else 0
        self.tasks.append(task)
        return self.full_by_count or self.full_by_bytes

    @property
    def full_by_count(self) -> bool:
        return len(self.tasks) >= self.threshold

    @property
    def full_by_bytes(self) -> bool:
        return self.bytes >= self.bytes_threshold

    def is_empty(self) -> bool:
        return not self.tasks

    def take(self) -> list[WireTask]:
        """Drain the tasks and reset the byte sum (batch.rs:63-66)."""
        tasks, self.tasks, self.bytes = self.tasks, [], 0
        return tasks
