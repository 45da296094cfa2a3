"""The simulated server side: sessions, the transfer rendezvous, and a deterministic scheduler.

Burn runs each session on its own OS thread (`crates/burn-remote/src/server/worker.rs:20-33`),
and a same-peer transfer is a rendezvous through `LocalCommService`, a map from transfer id to the
exposed `HandleKind` in which either side may arrive first
(`crates/burn-remote/src/server/local_comm.rs:31-92`). The model replaces threads by a scheduler
that runs each session's FIFO until it empties or blocks on a take, visiting sessions in a chosen
order (so a test can make the target arrive first). When every session with work is blocked it
raises `DeadlockError` where Burn would hang.

All rendezvous state is journaled with the handle containers, so a failed operation rolls back
everything it touched.
"""

from __future__ import annotations

import contextvars
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ..base.data import TensorData
from ..base.devices import Device
from ..base.errors import BurnPanic, DeadlockError
from ..base.request import Transport
from ..base.trace import Trace
from .backend import HandleKind
from .handles import Journal
from .ir import RegisterRemoteOp
from .port import SessionPort
from .session import Session

CAPABILITY_SEED = 5005
"""Seeds the stand-in for `TransferCapability::random()`, so that a run's trace reads the same
every time (Burn's capabilities are 32 random bytes,
`crates/burn-remote/src/shared/task.rs:41-49`)."""
CAPABILITY_BIT = 1 << 47
"""Every stand-in capability has this bit set and 47 random ones below it: it is never a small
same-peer transfer id."""

UNWOUND = "the unwinding freed all that {session} held ({ids}): its registry is empty"
"""What a panic costs beyond the task that panicked (`Server._end_after_panic`)."""

IROH_TIMEOUT_S = 300.0
"""How long an Iroh download waits for its source (`crates/burn-remote/src/transport/iroh/
transfer.rs:83`)."""


class Server:
    """Every session of one simulated deployment, and what connects them."""

    def __init__(self, trace: Trace, journal: Journal) -> None:
        self.trace = trace
        self.journal = journal
        self.sessions: dict[Device, Session] = {}
        self._local: dict[str, dict[int, tuple[Session, HandleKind]]] = {}
        self._published: dict[int, tuple[Session, TensorData]] = {}
        self.transfers: dict[int, tuple[Device, Device]] = {}
        self._next_transfer = 0
        self._capabilities = random.Random(CAPABILITY_SEED)
        self.clock = 0.0
        """Simulated seconds spent waiting (a transport timeout advances it; nothing sleeps)."""
        self._workers = contextvars.Context()
        """The context the sessions run in: a fresh one, as a worker thread starts with
        (`crates/burn-remote/src/server/worker.rs:20-33`), in which numpy's float errors are
        quiet. An overflow gives inf and 0/0 NaN, as in Burn (Rust float arithmetic never traps),
        and numpy's RuntimeWarning about it would only leak onto a learner's screen. Set once
        here rather than around every op (`np.errstate` costs more than a small op)."""
        self._workers.run(np.seterr, over="ignore", invalid="ignore", divide="ignore")
        self._running = False

    def add(self, session: Session) -> None:
        self.sessions[session.device] = session
        self.journal.watch(session.handles)

    def remove(self, session: SessionPort) -> None:
        """Undo `add` (a failed step forgetting the device it created)."""
        self.journal.unwatch(self.sessions.pop(session.device).handles)

    def number_transfers_as(self, other: Server) -> None:
        """Give this server's next transfer the id `other`'s next one gets: two clients, each
        with its own counter, can pick the same id (`faults.race` makes them, as Burn's
        per-process counters would; their capabilities are drawn alike)."""
        self._next_transfer = other._next_transfer
        self._capabilities.setstate(other._capabilities.getstate())

    def new_transfer(self, source: Device, target: Device) -> int:
        """The id of one move. Same peer: the next `LocalTransferId`, from a counter of its own
        that starts at 0 (`get_next_transfer_id`, `crates/burn-remote/src/client/runner.rs:
        373-397`). Another peer: a `TransferCapability::random()` (`runner.rs:458`), here a
        seeded random number with `CAPABILITY_BIT` set, so the two never meet."""
        if source.peer == target.peer:
            transfer_id = self._next_transfer
            self._next_transfer += 1
        else:
            transfer_id = CAPABILITY_BIT | self._capabilities.getrandbits(47)
        self.transfers[transfer_id] = (source, target)
        return transfer_id

    # --- rendezvous ----------------------------------------------------------------------

    def expose_local(self, source: Session, transfer_id: int, kind: HandleKind) -> None:
        pending = self._local.get(source.device.peer)
        if pending is None:  # a peer's first exposure: journaled too, so rollback removes it
            pending = {}
            self.journal.set(self._local, source.device.peer, pending)
        self.journal.set(pending, transfer_id, (source, kind))

    def exposed_locally(self, peer: str, transfer_id: int) -> bool:
        return transfer_id in self._local.get(peer, ())

    def take_local(self, peer: str, transfer_id: int) -> HandleKind:
        return self.journal.pop(self._local[peer], transfer_id)[1]

    def publish(self, source: Session, transfer_id: int, data: TensorData) -> None:
        self.journal.set(self._published, transfer_id, (source, data))

    def published(self, transfer_id: int) -> bool:
        return transfer_id in self._published

    def download(self, transfer_id: int) -> TensorData:
        return self.journal.pop(self._published, transfer_id)[1]

    def pending_transfers(self) -> int:
        """Exposed or published values nobody took yet."""
        return sum(len(p) for p in self._local.values()) + len(self._published)

    # --- scheduling ------------------------------------------------------------------------

    def run(self, first: SessionPort | None = None) -> None:
        """Run every session until all queues are empty, in the sessions' own context.

        A task that fails with a `BurnPanic` ends its session and the other sessions keep
        running, which is how a target left waiting for a dead source is found. What the dead
        session exposed stays in the rendezvous (`_end_after_panic`). Any other error stops
        everything at once. Either way the caller rolls the operation back.
        """
        if self._running:  # run again from inside (sessions that gave up go on): already there
            self._schedule(first)
            return
        self._running = True
        try:
            self._workers.run(self._schedule, first)
        finally:
            self._running = False

    def in_workers(self, work: Callable[..., Any], *args: Any) -> Any:
        """`work(*args)` in the sessions' own context (the fast path's one task)."""
        return self._workers.run(work, *args)

    def _schedule(self, first: SessionPort | None) -> None:
        order = [s for s in self.sessions.values() if s.queue]
        if not order:
            return
        if first is not None:
            order.sort(key=lambda s: s is not first)  # stable: `first` ahead, the rest in order
        panic: BurnPanic | None = None
        progressed, stuck = True, order
        while progressed and stuck:  # a pass over empty queues would change nothing
            progressed = False
            for session in order:
                try:
                    progressed |= self._drain(session)
                except BurnPanic as error:
                    self._end_after_panic(session, error)
                    panic = panic or error
                    progressed = True
                except BaseException:
                    self.clear_queues()
                    raise
            stuck = [s for s in order if s.queue]
        if stuck and self._give_up(stuck, panic):
            self.run()  # the sessions that gave up go on with their next tasks
            stuck = [s for s in order if s.queue]
        if stuck:
            self._hang(stuck, panic)
        if panic is not None:
            raise panic

    def _drain(self, session: Session) -> bool:
        ran = False
        while session.queue:
            transfer_id = session.waiting_for()
            if transfer_id is not None:
                if session.parked_on != transfer_id:  # the task starts, then waits inside it
                    session.start_head()
                    session.parked_on = transfer_id
                    self.trace.record("wait", session.label, None, None, 0,
                                      f"transfer {transfer_id} not exposed yet: parked")
                return ran
            started, session.parked_on = session.parked_on is not None, None
            session.run_one(started)
            ran = True
        return ran

    def _end_after_panic(self, session: Session, panic: BurnPanic) -> None:
        """A panic unwinds the session's worker thread before it reaches `purge_session`, which
        runs only once the task channel closes (`crates/burn-remote/src/server/worker.rs:
        140-151`): what the session exposed stays in the rendezvous, and a target can still take
        it (`purge_session` is for a normal close).

        The unwinding also drops the session's interpreter, and with it every tensor its registry
        held (the thread owns the handler, worker.rs:123-125): the panic says so, naming them,
        since those tensors are lost even where the step that panicked is undone."""
        held = session.handle_ids()
        session.end(f"panicked: {panic.message} ({panic.source})", panicked=True)
        panic.session = session.label
        if held:
            panic.effects = (*panic.effects, UNWOUND.format(
                session=session.label, ids=", ".join(f"#{i}" for i in held)))
        self.trace.record("panic", session.label, None, None, 0,
                          f"{panic.message} [{panic.source}]; session ended")

    def purge_session(self, session: Session) -> None:
        """`session` closed normally: drop the same-peer entries it exposed that no target took
        (`LocalCommService::purge_session`, `crates/burn-remote/src/server/local_comm.rs:87-92`,
        called at `worker.rs:151`). Cross-peer exposures live in the transfer service, which no
        session close touches."""
        pending = self._local.get(session.device.peer, {})
        for transfer_id in [t for t, (src, _) in pending.items() if src is session]:
            self.journal.pop(pending, transfer_id)

    def close(self) -> None:
        """The client went away: each session's task channel closes and its worker purges what it
        exposed (`purge_session`) before it drains and exits. A worker that panicked is gone and
        purges nothing: its entries stay for the server's lifetime."""
        for session in self.sessions.values():
            if not session.panicked:
                self.purge_session(session)

    def _give_up(self, stuck: list[Session], panic: BurnPanic | None) -> bool:
        """Targets waiting for a download over Iroh stop after `IROH_TIMEOUT_S` (on the
        simulated clock: nothing sleeps). `download_tensor` returns None, `RegisterTensorRemote`
        returns an error that the worker logs, and the session goes on without the tensor
        (`crates/burn-remote/src/transport/iroh/transfer.rs:83,138`, `server/worker.rs:140-146,
        258-273`). Over WebSocket the same wait has no end (`_hang`)."""
        gave_up = False
        for session in stuck:
            op = session.queue[0][0]
            if not (isinstance(op, RegisterRemoteOp) and self.gives_up(op)):
                continue
            session.queue.popleft()
            session.parked_on = None  # the next task has not started yet
            line = (f"target session {session.label} gave up waiting for transfer "
                    f"{op.transfer_id} {self.waited_out(op.transfer_id)}: the error is logged "
                    f"and the session goes on, but tensor #{int(op.out.id)} was never "
                    "registered, so its first use panics")
            self.trace.record("timeout", session.label, op.out.id, None, 0, line)
            if panic is not None:
                panic.effects = (*panic.effects, line)
            gave_up = True
        return gave_up

    def gives_up(self, op: RegisterRemoteOp) -> bool:
        """Whether a target stuck on `op` stops waiting: over Iroh it does (`_give_up`)."""
        return op.request is not None and op.request.transport is Transport.IROH

    def _hang(self, stuck: list[Session], panic: BurnPanic | None) -> None:
        """Sessions that can never run again: Burn would block them forever."""
        lines = []
        for session in stuck:
            transfer_id = session.waiting_for()
            line = (f"target session {session.label} would wait forever for transfer "
                    f"{transfer_id} ({self.never_exposed(transfer_id)})")
            lines.append(line)
            session.end(f"hung: {line}")
            self.trace.record("panic", session.label, None, None, 0, line)
        if panic is None:
            raise DeadlockError("; ".join(lines))
        panic.effects = (*panic.effects, *lines)

    def waited_out(self, transfer_id: int) -> str:
        """How long an Iroh download waited before it gave up, as the trace tells it: here on
        the simulated clock (a served peer really waits, `routerlab.core.remote`)."""
        self.clock += IROH_TIMEOUT_S
        return f"after {IROH_TIMEOUT_S:g} s over Iroh (simulated clock: t = {self.clock:g} s)"

    def never_exposed(self, transfer_id: int | None) -> str:
        """Why nothing will ever expose `transfer_id`: its source session ended, or none will."""
        source = self.transfers.get(transfer_id) if transfer_id is not None else None
        ended = source is not None and source[0] in self.sessions and \
            self.sessions[source[0]].ended is not None
        return f"its source {source[0]} ended" if ended and source else \
            "nothing will ever expose it"

    def settle(self, kept: bool) -> None:
        """End a step on the other processes it touched (`routerlab.core.remote`); the
        in-process server has none: the journal already kept or undid everything."""

    def clear_queues(self) -> None:
        for session in self.sessions.values():
            session.queue.clear()
            session.parked_on = None
