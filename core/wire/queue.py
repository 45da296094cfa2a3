"""A device's client: when a task reaches the service, which frame it leaves in, and why.

Two queues stand between a burn-remote call and the wire. First CubeCL's device queue
(`closures.py`): every call is a closure submitted to the device's runner, which runs nothing
until 32 closures are queued, a call waits for an answer, or a move calls `flush_queue`
(`crates/burn-remote/src/client/runner.rs:23-120, 422-482`). Then, as the runner runs each
closure, burn-remote's `RemoteService` submits its task one of three ways
(`crates/burn-remote/src/client/service.rs`):

- **buffered** (`submit`, service.rs:547-556): an op (`register_op`, 324-329), an alias
  (393-399), a seed (477-479), a graph (332-384). It leaves when the batch is full: 4 tasks or
  1 MiB of data (`batch.py`);
- **flushed at once**: an upload (`register_tensor`, 386-389) and the four transfer tasks
  (`register_tensor_remote`, `expose_tensor_remote`, `expose_tensor_local`,
  `register_tensor_local`, 408-475), which have "no following barrier on this client" (403-407);
- **answered** (`submit_blocking`, 564-567): a read (486-492), a sync (494-497) and
  `dtype_usage` (519-520) push, flush, then wait for the server's answer.

"At once" is at once *when the runner runs the closure*: an upload waits in the closure queue
like an op, and leaves with the first drain. So a server that panics on an op does so when the
batch carrying it arrives, and the user learns it only at the next call that waits for an answer:
the session worker is gone, and a read fails with `Failed to read tensor`
(`crates/burn-remote/src/client/runner.rs:44-52`), a sync with "Remote response channel closed
before sync completed" (service.rs:501-504). `WireQueue` records every drain, every batch and
that moment (`Surfaced`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..base.choices import Choice
from .batch import FLUSH_BYTES_THRESHOLD, FLUSH_THRESHOLD, OutgoingBatch, WireTask
from .closures import CHANNEL_MAX_TASK, ClosureQueue, Drain

BUFFERED = frozenset(("RegisterOperation", "RegisterAlias", "Seed", "RegisterAndExecuteGraph",
                      "ExecuteGraph"))
FLUSHED = frozenset(("RegisterTensor", "RegisterTensorRemote", "ExposeTensorRemote",
                     "ExposeTensorLocal", "RegisterTensorLocal"))
ANSWERED = frozenset(("ReadTensor", "SyncBackend", "DTypeUsage"))


class Flush(Choice, noun="flush reason"):
    """Why a batch left the client."""

    COUNT = "count"
    """The batch reached the task threshold (batch.rs:55)."""
    BYTES = "bytes"
    """The batch's data bytes reached their threshold (batch.rs:55)."""
    ANSWER = "answer"
    """A call that waits for an answer pushed itself and flushed (service.rs:564-567)."""
    UPLOAD = "upload"
    """`register_tensor` flushes right after it pushes (service.rs:386-389)."""
    TRANSFER = "transfer"
    """A transfer task flushes right away (service.rs:401-475)."""
    CLOSE = "close"
    """The client's teardown appends `Close` and sends what is left (service.rs:676-685)."""
    STEP = "step"
    """RouterLab's, not Burn's: a served client's step ends, and what its batches still hold
    leaves before the step's `Sync`, which runs the step on the peer (core/remote/link.py).
    Burn's client would keep them until a threshold or an answer."""


WHY = {Flush.COUNT: "the batch reached {n} tasks", Flush.BYTES: "its data reached {b} bytes",
       Flush.ANSWER: "a call waits for an answer", Flush.UPLOAD: "an upload flushes at once",
       Flush.TRANSFER: "a transfer flushes at once", Flush.CLOSE: "the client closed",
       Flush.STEP: "the step ended (RouterLab's Sync runs it on the peer)"}


def task_kind(kind: str) -> str:
    """How the service submits a task of this kind: `buffered`, `flushed` or `answered`."""
    for name, kinds in (("buffered", BUFFERED), ("flushed", FLUSHED), ("answered", ANSWERED)):
        if kind in kinds:
            return name
    raise ValueError(f"{kind!r} is not a burn-remote task")


def flush_reason(kind: str, queued: int, queued_bytes: int, nbytes: int = 0,
                 threshold: int = FLUSH_THRESHOLD,
                 bytes_threshold: int = FLUSH_BYTES_THRESHOLD) -> Flush | None:
    """Why the batch leaves when a task of `kind` (carrying `nbytes` of data) is submitted to a
    batch that holds `queued` tasks and `queued_bytes` data bytes; None: it waits.

    The `bytes` rule is Burn's (batch.rs:52-56) but unreachable at the pin: only a
    `RegisterTensor` adds bytes, and it flushes the batch at once, so a buffered task always
    finds `queued_bytes == 0`. It is kept because the rule is the batch's, not the service's."""
    how = task_kind(kind)
    if how == "answered":
        return Flush.ANSWER
    if how == "flushed":
        return Flush.UPLOAD if kind == "RegisterTensor" else Flush.TRANSFER
    if queued + 1 >= threshold:
        return Flush.COUNT
    if queued_bytes + (nbytes if kind == "RegisterTensor" else 0) >= bytes_threshold:
        return Flush.BYTES
    return None


def push(batch: OutgoingBatch, task: WireTask) -> Flush | None:
    """Submit `task` as burn-remote's service does: into `batch`, returning why the batch must
    leave now (then the caller sends it), or None: it waits (`flush_reason`). The one rule of
    the in-process model (`WireQueue`) and of the served client (core/remote/link.py)."""
    reason = flush_reason(task.kind, len(batch.tasks), batch.bytes, task.nbytes, batch.threshold,
                          batch.bytes_threshold)
    batch.push(task)
    return reason


@dataclass(frozen=True)
class Batch:
    """One frame that left the client: its number on this device, its tasks, their data bytes,
    why it left and at which step."""

    number: int
    device: str
    tasks: tuple[WireTask, ...]
    nbytes: int
    reason: Flush
    step: int

    def describe(self) -> str:
        why = WHY[self.reason].format(n=len(self.tasks), b=self.nbytes)
        names = ", ".join(map(str, self.tasks))
        return f"batch {self.number}: {len(self.tasks)} task(s) [{names}] left: {why}"


@dataclass(frozen=True)
class Surfaced:
    """A server panic and the moment its user learns of it: the task that panicked (sent at
    `failed_step`), and the call that waits for an answer at `seen_step`."""

    device: str
    task: WireTask
    seen: WireTask
    seen_step: int

    @property
    def failed_step(self) -> int:
        return self.task.step

    def describe(self) -> str:
        return (f"{self.device}: {self.task}, called at step {self.failed_step}, panicked the "
                f"server when its batch arrived; the user sees it at step {self.seen_step}, "
                f"when {self.seen} waits for an answer")


Drained = tuple[Drain, tuple[WireTask, ...], int]
"""One run of the device runner: why, the closures it ran, at which step."""


class WireQueue:
    """One device's client (module docstring): CubeCL's closure queue in front of burn-remote's
    service and its outgoing batch. `record` receives each batch as it leaves, `on_drain` each
    run of the runner; `step` says which step is running."""

    def __init__(self, device: str, record: Callable[[Batch], None] = lambda batch: None,
                 step: Callable[[], int] = lambda: 0, threshold: int = FLUSH_THRESHOLD,
                 bytes_threshold: int = FLUSH_BYTES_THRESHOLD,
                 on_drain: Callable[[Drained], None] = lambda drained: None,
                 capacity: int = CHANNEL_MAX_TASK) -> None:
        self.device = device
        self.closures = ClosureQueue(capacity)
        self.batch = OutgoingBatch(threshold, bytes_threshold)
        self.drained: list[Drained] = []
        self.sent: list[Batch] = []
        self._record = record
        self._on_drain = on_drain
        self._step = step
        self.poisoned: WireTask | None = None
        """A task the server will panic on, still queued or already sent."""
        self.dead = False
        """The batch carrying the poisoned task left: the session's worker has panicked."""
        self.surfaced: Surfaced | None = None

    def send(self, kind: str, label: str, *, nbytes: int = 0, stream: int = 0,
             panics: bool = False) -> Surfaced | None:
        """Submit one call as burn-remote does: its closure joins the device queue, which the
        runner drains when it is full, when this call waits for an answer (`submit_blocking`),
        or when it is a transfer task (the move's `flush_queue`). `panics`: the server panics
        running it. Returns the surfaced panic when this call is the one that waits for the dead
        session's answer."""
        how = task_kind(kind)  # an unknown kind is refused before anything is queued
        task = WireTask(kind, label, stream, nbytes, self._step())
        if panics and self.poisoned is None:
            self.poisoned = task
        full = self.closures.submit(task)
        if how == "answered":
            self.drain(Drain.WAIT)
            return self._answer(task)
        if how == "flushed" and kind != "RegisterTensor":
            self.drain(Drain.MOVE)
        elif full:
            self.drain(Drain.FULL)
        return None

    def drain(self, reason: Drain) -> None:
        """The runner runs every queued closure, in order: each hands its task to the service,
        which pushes it and flushes the batch as its kind says."""
        tasks = tuple(self.closures.take())
        if not tasks:
            return
        drained = (reason, tasks, self._step())
        self.drained.append(drained)
        self._on_drain(drained)
        for task in tasks:
            leaves = push(self.batch, task)
            if leaves is not None:
                self.flush(leaves)

    def flush(self, reason: Flush) -> Batch | None:
        """Send what the batch holds as one frame (a no-op when it is empty, service.rs:648-660)."""
        if self.batch.is_empty():
            return None
        nbytes = self.batch.bytes
        tasks = tuple(self.batch.take())
        batch = Batch(len(self.sent) + 1, self.device, tasks, nbytes, reason, self._step())
        self.sent.append(batch)
        if self.poisoned is not None and self.poisoned in tasks:
            self.dead = True
        self._record(batch)
        return batch

    def _answer(self, call: WireTask) -> Surfaced | None:
        if not self.dead or self.poisoned is None or self.surfaced is not None:
            return None
        self.surfaced = Surfaced(self.device, self.poisoned, call, call.step)
        return self.surfaced

    def snapshot(self) -> WireState:
        """What `restore` puts back when a step is rolled back."""
        return (list(self.closures.closures), list(self.batch.tasks), self.batch.bytes,
                len(self.drained), len(self.sent), self.poisoned, self.dead, self.surfaced)

    def restore(self, state: WireState) -> None:
        (closures, tasks, nbytes, drained, sent, self.poisoned, self.dead,
         self.surfaced) = state
        self.closures.closures = closures
        self.batch.tasks, self.batch.bytes = tasks, nbytes
        del self.drained[drained:]
        del self.sent[sent:]


WireState = tuple[list[WireTask], list[WireTask], int, int, int, WireTask | None, bool,
                  Surfaced | None]
"""A `WireQueue`'s state, as `snapshot` takes it."""
