"""The client's side of a deployment whose peers are served: `Runtime(peers={...})`.

`Deployment` is the runtime's `Server`: the in-process peer (`local`) keeps its sessions here, run
by the model's scheduler; a device of a served peer gets a `RemoteSession`, which offers the
channel and the client what a `Session` offers them (`submit`, `check_alive`, `view`, the policy)
and sends each task to its peer instead of running it. One step is all or nothing across
processes: `run` sends `Sync` to every peer the step touched (they run concurrently), runs the
in-process sessions, then collects the answers; `settle` commits the step everywhere or rolls it
back everywhere, and merges the peers' trace events into the runtime's trace.

Moves keep burn-remote's routes (`crates/burn-remote/src/client/runner.rs:406-487`): between two
devices of one served peer the expose and the register both go to that peer (its own
rendezvous); between two served peers the target's server downloads from the source's server.
The in-process peer has no `/data` route: a served target gets its bytes pushed (`Publish`), and
an in-process target downloads from the served source itself.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

from routerlab.core.devices import LOCAL_PEER, Device
from routerlab.core.errors import BurnPanic, DeviceError, RouterLabError, SessionEnded
from routerlab.core.handles import Journal
from routerlab.core.interpreter import TensorInterpreter
from routerlab.core.ir import OperationIr, ReadOp, RegisterRemoteOp
from routerlab.core.policies import Policy
from routerlab.core.remote import protocol as P
from routerlab.core.remote.codec import decode_error, encode_data, encode_op, task_kind
from routerlab.core.remote.link import PeerError, PeerLink
from routerlab.core.remote.transfers import NetworkServer, PeerSource
from routerlab.core.request import DEFAULT_TRANSPORT
from routerlab.core.session import Reply, Session
from routerlab.core.trace import Trace
from routerlab.core.view import TableView, Viewable


class RemotePolicy:
    """What the client asks of a served device's interpreter without a round trip: the policy
    (the peer's interpreters hold the same one, sent at `Init`)."""

    def __init__(self, policy: Policy, trace: Trace, device: Device) -> None:
        self.policy, self.trace, self.device = policy, trace, device

    legacy = TensorInterpreter.legacy
    policy_for = TensorInterpreter.policy_for

    @property
    def handles(self) -> Any:
        raise RouterLabError(f"the registry of {self.device} lives in its peer's process; read "
                             "it with Runtime.registry or handle_ids")

    backend = handles


class RemoteSession(Viewable):
    """A served device's session, seen from the client (see the module)."""

    def __init__(self, device: Device, link: PeerLink, deployment: Deployment,
                 policy: Policy) -> None:
        self.device, self.label, self.link = device, str(device), link
        self.deployment = deployment
        self.interpreter = RemotePolicy(policy, deployment.trace, device)
        self.queue: deque[Any] = deque()
        """Always empty: the peer holds the FIFO (the in-process scheduler passes it by)."""
        self.ended: str | None = None
        self.panicked = False
        self.parked_on: int | None = None

    def check_alive(self) -> None:
        Session.check_alive(self)  # type: ignore[arg-type]  # reads `ended` and `label` only

    def submit(self, op: OperationIr, reply: Reply | None = None) -> None:
        self.check_alive()
        message: dict[str, Any] = {"k": task_kind(op), "device": self.label, "op": encode_op(op)}
        if isinstance(op, ReadOp):
            message["id"] = self.link.next_id()
            self.link.replies[message["id"]] = reply or Reply()
        elif isinstance(op, RegisterRemoteOp):
            message["source"] = self.deployment.source_of(op.transfer_id, self.link)
        self.link.post(message)

    def end(self, reason: str, panicked: bool = False) -> None:
        self.ended, self.panicked = reason, panicked

    def free_unwound(self) -> None:
        """Nothing here: the peer frees a panicked worker's handles when the step is undone."""

    def counters(self) -> tuple[int, int]:
        """The peer backend's `(bytes_copied, copies)` for this device."""
        answer = self.link.request({"k": P.STATS, "device": self.label})
        return int(answer["bytes_copied"]), int(answer["copies"])

    def view(self) -> TableView:
        answer = self.link.request({"k": P.REGISTRY, "device": self.label})
        return TableView(answer["title"], answer["columns"], answer["rows"],
                         f"{answer['caption']}; served by {self.link.address}")


class Deployment(NetworkServer):
    """The runtime's server when some peers are served (see the module)."""

    def __init__(self, trace: Trace, journal: Journal) -> None:
        super().__init__(trace, journal)
        self.peers: dict[str, PeerLink] = {}
        self.policy = Policy.NATIVE
        self._pushes: dict[int, PeerLink] = {}
        """Transfers from the in-process peer to a served one, waiting for their bytes."""

    def connect(self, peers: Mapping[str, str], policy: Policy, cubecl_legacy: bool) -> None:
        """Open one link per served peer (closing those opened if one fails)."""
        self.policy = policy
        try:
            for name, address in peers.items():
                if name == LOCAL_PEER:
                    raise DeviceError(f"peer {LOCAL_PEER!r} is the in-process one; give served "
                                      "peers another name")
                self.peers[name] = PeerLink(name, address, policy=policy,
                                            cubecl_legacy=cubecl_legacy)
        except BaseException:
            self.close()
            raise

    def open(self, device: Device) -> RemoteSession:
        """A served device's session (Burn's session `Init` with its device index)."""
        link = self.peers[device.peer]
        bare = str(Device(device.kind, device.index, LOCAL_PEER, device.profile))
        if bare not in link.devices:
            raise DeviceError(f"peer {device.peer} ({link.address}) serves "
                              f"{', '.join(link.devices)}, not {bare}")
        link.request({"k": P.OPEN, "device": str(device)})
        return RemoteSession(device, link, self, self.policy)

    def add(self, session: Any) -> None:
        if isinstance(session, RemoteSession):
            self.sessions[session.device] = session  # type: ignore[assignment]
        else:
            super().add(session)

    def remove(self, session: Any) -> None:
        if isinstance(session, RemoteSession):
            del self.sessions[session.device]
        else:
            super().remove(session)

    def source_of(self, transfer_id: int, target: PeerLink) -> dict[str, Any]:
        """Where a served target fetches `transfer_id`: its source's server, or a push from
        this process when the source is the in-process peer."""
        source = self.transfers[transfer_id][0]
        link = self.peers.get(source.peer)
        if link is None:
            self._pushes[transfer_id] = target
            return {"push": True}
        return {"address": link.address, "client": link.key}

    # --- the in-process peer's bytes path ----------------------------------------------------

    def publish(self, source: Session, transfer_id: int, data: Any) -> None:
        target = self._pushes.pop(transfer_id, None)
        if target is None:
            super().publish(source, transfer_id, data)
            return
        target.post({"k": P.PUBLISH, "transfer": transfer_id, "data": encode_data(data)})
        target.flush()

    def published(self, transfer_id: int) -> bool:
        if transfer_id not in self.sources and transfer_id in self.transfers:
            source, target = self.transfers[transfer_id]
            link = self.peers.get(source.peer)
            if link is not None:  # the head task of the target asks: it carries the transport
                op = self.sessions[target].queue[0][0]
                request = getattr(op, "request", None)
                transport = (request.transport if request else None) or DEFAULT_TRANSPORT
                self.expect(transfer_id, PeerSource(self.links, link.address, link.key,
                                                    transport))
        return super().published(transfer_id)

    # --- one step ----------------------------------------------------------------------------

    def run(self, first: Session | None = None) -> None:
        """Sync every touched peer, run the in-process sessions meanwhile, then collect."""
        waiting = {}
        for link in self.peers.values():
            if link.outbox:
                mine = first is not None and getattr(first, "link", None) is link
                waiting[link] = link.send_request({"k": P.SYNC, "first": first.label
                                                   if first is not None and mine else None})
        local = first if isinstance(first, Session) else None
        mark = len(self.trace)
        errors: list[RouterLabError] = []
        try:
            super().run(local)
        except RouterLabError as error:
            errors.append(error)
        finally:
            self._push_never()
        notes = [e.detail for e in self.trace.read(mark) if e.kind == "timeout"]
        for link, request_id in waiting.items():  # every answer is read, whatever the others
            try:
                answer = link.answer(request_id)
            except PeerError as lost:
                errors.append(lost)
                continue
            self._states(link, answer["sessions"])
            if answer.get("error"):
                errors.append(decode_error(answer["error"]))
            notes += answer.get("notes") or []
        if errors:
            raise _combined(errors, notes)
        if not self.journal.active:  # a drop outside any step: it is its own step
            self.settle(True)

    def _push_never(self) -> None:
        """Tell a served target that the bytes it waits for will never come (the in-process
        source ended), as a served source would answer its download."""
        for transfer_id, target in list(self._pushes.items()):
            source = self.sessions.get(self.transfers[transfer_id][0])
            if source is not None and source.ended is not None:
                target.post({"k": P.PUBLISH, "transfer": transfer_id, "data": None,
                             "reason": f"its source {source.label} ended"})
                target.flush()
                del self._pushes[transfer_id]

    def settle(self, kept: bool) -> None:
        """Commit (or roll back) the step on every peer it touched; a kept step's events join
        the runtime's trace."""
        self._pushes.clear()
        self.sources.clear()  # downloads into the in-process peer belong to the step that ends
        self.failed.clear()
        waiting: dict[PeerLink, int] = {}
        lost: list[PeerError] = []
        for link in self.peers.values():  # every touched peer is told, even if one is gone
            if not link.touched:
                continue
            link.touched = False
            link.outbox.clear()
            try:
                waiting[link] = link.send_request({"k": P.COMMIT if kept else P.ROLLBACK})
            except PeerError as error:
                lost.append(error)
        for link, request_id in waiting.items():
            try:
                answer = link.answer(request_id)
            except PeerError as error:
                lost.append(error)
                continue
            self._states(link, answer["sessions"])
            self.trace.events.extend(tuple(event) for event in answer.get("events") or ())
        if lost:
            raise lost[0]

    def _states(self, link: PeerLink, states: Mapping[str, Any]) -> None:
        """Mirror the peer's session states (a panic there ends the session here too)."""
        for session in self.sessions.values():
            if isinstance(session, RemoteSession) and session.link is link:
                ended, panicked = states.get(session.label, (None, False))
                if ended:
                    session.end(ended, panicked)

    def close(self) -> None:
        for link in self.peers.values():
            link.close()
        self.peers.clear()
        super().close()


def _combined(errors: list[RouterLabError], notes: list[str]) -> RouterLabError:
    """One error for a step that failed on several peers: the first panic, with what the
    others reported as its effects (as the in-process scheduler composes them)."""
    panic = next((e for e in errors if isinstance(e, BurnPanic)), None)
    if panic is None:
        return errors[0]
    others = [str(e) for e in errors if e is not panic and not isinstance(e, SessionEnded)]
    panic.effects = (*panic.effects, *[n for n in (*others, *notes) if n not in panic.effects])
    return panic


__all__ = ["Deployment", "PeerError", "RemoteSession"]
