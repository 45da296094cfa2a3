"""Streams: every call carries the stream of the thread that made it; one session runs them all
in one order.

Every call of burn-remote's client takes `StreamId::current()`, the calling thread's stream
(`crates/burn-remote/src/client/runner.rs:24,38,63,75`). On the server one worker runs a session's
tasks in **global submission order**, a single FIFO; the stream id only sets the backend's
thread-local stream while a task runs (`StreamId::executes`), it never reorders work
(`crates/burn-remote/src/server/worker.rs:9-17`, and per task 197, 277, 290, 307).

So for two client threads:

- **ordered**: the calls of one thread, in the order that thread made them; and every task
  after every task that reached the client's runner before it;
- **not ordered**: two threads' calls with respect to each other: which comes first is how the
  threads happen to reach the runner (`interleave`);
- **an alias** (`register_alias`, `crates/burn-router/src/interpreter.rs:145-159`) is a second id
  over the same buffer. Fusion mints one when a tensor crosses streams
  (`crates/burn-router/src/fusion.rs:119-135`): each stream then consumes its own id, so the
  first stream's last use (`ReadWrite`) cannot free the tensor under the other. Without it both
  streams name one id, and the second use panics `Should have handle for tensor`.

`StreamedSession` is one session's worker with its registry of reference-counted buffers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..base.errors import BurnPanic, MissingHandleError

ALIAS_SOURCE = "crates/burn-router/src/interpreter.rs:156"


@dataclass(frozen=True)
class Call:
    """One client call: the stream (thread) it was made on, what it does and on which ids.
    `op` is `make` (out), `use` (reads `inputs`), `consume` (last use of `inputs`) or `alias`
    (out becomes an alias of `inputs[0]`)."""

    stream: int
    op: str
    inputs: tuple[int, ...] = ()
    out: int | None = None

    def __str__(self) -> str:
        args = ", ".join(f"#{i}" for i in self.inputs)
        out = "" if self.out is None else f" -> #{self.out}"
        return f"s{self.stream}: {self.op}({args}){out}"


def interleave(threads: Sequence[Sequence[Call]], order: Sequence[int]) -> list[Call]:
    """The order the client's runner receives the calls of several threads: `order` names,
    call by call, which thread got there next. Each thread's own calls stay in order."""
    cursors = [0] * len(threads)
    out: list[Call] = []
    for thread in order:
        if not 0 <= thread < len(threads) or cursors[thread] >= len(threads[thread]):
            raise ValueError(f"thread {thread} has no call left at position {len(out)}")
        out.append(threads[thread][cursors[thread]])
        cursors[thread] += 1
    if any(c != len(t) for c, t in zip(cursors, threads, strict=True)):
        raise ValueError("the order leaves some calls out")
    return out


def interleavings(first: int, second: int, after: int = 0) -> list[list[int]]:
    """Every order in which two threads' calls can reach the runner: `first` calls of thread 0
    and `second` of thread 1, whose first call comes only after thread 0's `after`-th (it waits
    for the tensor thread 0 hands over)."""
    orders: list[list[int]] = []

    def grow(order: list[int], left0: int, left1: int) -> None:
        if not left0 and not left1:
            orders.append(order)
            return
        if left0:
            grow([*order, 0], left0 - 1, left1)
        if left1 and (second - left1 > 0 or first - left0 >= after):
            grow([*order, 1], left0, left1 - 1)

    grow([], first, second)
    return orders


@dataclass(frozen=True)
class Outcome:
    """One order of two threads' calls run on a fresh session: the calls as they ran, the panic
    that ended the session (None: all ran) and the buffers still alive."""

    calls: tuple[Call, ...]
    panic: str | None
    live: int


def every_order(threads: Sequence[Sequence[Call]], after: int = 0) -> list[Outcome]:
    """Run two threads' calls in every order they can arrive (`interleavings`), each on a fresh
    session: what the server does whichever thread gets there first."""
    outcomes = []
    for order in interleavings(len(threads[0]), len(threads[1]), after):
        calls = interleave(threads, order)
        session = StreamedSession()
        panic = None
        try:
            session.run(calls)
        except BurnPanic as error:
            panic = error.message
        outcomes.append(Outcome(tuple(calls), panic, len(session.live_buffers())))
    return outcomes


@dataclass
class StreamedSession:
    """One session's worker: tasks in arrival order, each run on its stream's context, over a
    registry of ids to buffers (a buffer lives while any id names it)."""

    handles: dict[int, int] = field(default_factory=dict)
    """Tensor id -> buffer number."""
    ran: list[tuple[Call, str]] = field(default_factory=list)
    """Each task with the stream context it ran on."""
    _buffers: int = 0

    def run(self, calls: Sequence[Call]) -> list[tuple[Call, str]]:
        """Run `calls` in the order they arrived; a panic ends the session there (raised)."""
        for call in calls:
            self._run_one(call)
            self.ran.append((call, f"stream {call.stream}"))
        return self.ran

    def live_buffers(self) -> set[int]:
        return set(self.handles.values())

    def _run_one(self, call: Call) -> None:
        if call.op == "make":
            assert call.out is not None, "make needs an output id"
            self._buffers += 1
            self.handles[call.out] = self._buffers
        elif call.op == "alias":
            assert call.out is not None, "an alias needs its new id"
            source = call.inputs[0]
            if source not in self.handles:
                raise BurnPanic("alias source tensor must be materialized before it is aliased",
                                ALIAS_SOURCE)
            self.handles[call.out] = self.handles[source]
        elif call.op in ("use", "consume"):
            for tensor in call.inputs:
                if tensor not in self.handles:
                    raise MissingHandleError(tensor)
                if call.op == "consume":
                    del self.handles[tensor]  # ReadWrite: the last use takes the handle out
        else:
            raise ValueError(f"unknown call {call.op!r}")
