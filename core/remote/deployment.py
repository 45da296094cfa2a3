"""The client's side of a deployment whose peers are served: `Runtime(peers={...})`.

`Deployment` is the runtime's `Server`: the in-process peer (`local`) keeps its sessions here, run
by the model's scheduler; a device of a served peer gets a `RemoteSession`, which offers the
channel and the client what a `Session` offers them (the `SessionPort` of `core/router/port.py`)
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

from ..base.devices import LOCAL_PEER, Device
from ..base.errors import (
    BurnPanic,
    DeviceError,
    RouterLabError,
    SessionEnded,
    StaleHandle,
    TransferTimedOut,
)
from ..base.policies import Policy
from ..base.request import DEFAULT_TRANSPORT
from ..base.trace import Trace
from ..base.view import TableView, Viewable
from ..router.handles import Journal
from ..router.ir import OperationIr, ReadOp, RegisterDataOp, RegisterRemoteOp
from ..router.port import Reply, SessionPort
from ..router.session import Session
from . import protocol as P
from .codec import decode_error, encode_data, encode_op, task_kind
from .link import PeerError, PeerLink, PeerLost
from .transfers import NetworkServer, PeerSource

RESTART_WAIT_S = 5.0
"""How long a client waits for a restarting peer to close its connection."""


class RemoteSession(Viewable):
    """A served device's session, seen from the client (see the module)."""

    def __init__(self, device: Device, link: PeerLink, deployment: Deployment) -> None:
        self.device, self.label, self.link = device, str(device), link
        self.deployment = deployment
        self.queue: deque[Any] = deque()
        """Always empty: the peer holds the FIFO (the in-process scheduler passes it by)."""
        self.ended: str | None = None
        self.panicked = False
        self.parked_on: int | None = None
        self.lost: dict[int, str] = {}
        """Ids this device held before its peer restarted, and why they are gone."""
        self.last_kept: list[list[Any]] = []
        """The peer's registry rows at the last kept step (what its death takes)."""

    def check_alive(self) -> None:
        Session.check_alive(self)  # type: ignore[arg-type]  # reads `ended` and `label` only

    def submit(self, op: OperationIr, reply: Reply | None = None) -> None:
        self.check_alive()
        stale = [int(t.id) for t in op.inputs() if int(t.id) in self.lost]
        if stale and not self.deployment.legacy:  # Burn sends them on (docs/faults.md)
            raise StaleHandle(f"tensor #{stale[0]} on {self.label} is stale: "
                              f"{self.lost[stale[0]]}")
        message: dict[str, Any] = {"k": task_kind(op), "device": self.label, "op": encode_op(op)}
        if isinstance(op, ReadOp):
            message["id"] = self.link.next_id()
            self.link.replies[message["id"]] = reply or Reply()
        elif isinstance(op, RegisterRemoteOp):
            message["source"] = self.deployment.source_of(op.transfer_id, self.link)
        nbytes = len(op.data.bytes) if isinstance(op, RegisterDataOp) else 0  # batch.rs:31-36
        self.link.submit(self.label, message, nbytes)

    def end(self, reason: str, panicked: bool = False) -> None:
        self.ended, self.panicked = reason, panicked

    def free_unwound(self) -> None:
        """Nothing here: the peer frees a panicked worker's handles when the step is undone."""

    def counters(self) -> tuple[int, int]:
        """The peer backend's `(bytes_copied, copies)` for this device."""
        answer = self.link.request({"k": P.STATS, "device": self.label})
        return int(answer["bytes_copied"]), int(answer["copies"])

    def handle_ids(self) -> list[int]:
        """The ids the peer's registry holds (one round trip, the registry's)."""
        return sorted(int(row[0]) for row in self.view().rows)  # type: ignore[arg-type]

    def handle(self, tensor_id: int) -> Any:
        raise RouterLabError(f"the registry of {self.label} lives in its peer's process; read "
                             "it with Runtime.registry or handle_ids")

    def view(self) -> TableView:
        if self.link.alive:
            try:
                answer = self.link.request({"k": P.REGISTRY, "device": self.label})
            except PeerError:
                if self.link.alive:
                    raise
                self.deployment.bury(self.link, "")
        if not self.link.alive:
            return TableView(f"Registry {self.label}", ["id", "dtype", "shape", "bytes"],
                             self.last_kept, f"LOST: {self.ended}",
                             styles={i: "error" for i in range(len(self.last_kept))})
        return TableView(answer["title"], answer["columns"], answer["rows"],
                         f"{answer['caption']}; served by {self.link.address}")


class Deployment(NetworkServer):
    """The runtime's server when some peers are served (see the module)."""

    def __init__(self, trace: Trace, journal: Journal) -> None:
        super().__init__(trace, journal)
        self.peers: dict[str, PeerLink] = {}
        self.policy = Policy.NATIVE
        self.cubecl_legacy = False
        self._pushes: dict[int, PeerLink] = {}
        """Transfers from the in-process peer to a served one, waiting for their bytes."""

    def connect(self, peers: Mapping[str, str], policy: Policy, cubecl_legacy: bool) -> None:
        """Open one link per served peer (closing those opened if one fails)."""
        self.policy, self.cubecl_legacy = policy, cubecl_legacy
        self.legacy = policy is Policy.LEGACY
        try:
            for name, address in peers.items():
                if name == LOCAL_PEER:
                    raise DeviceError(f"peer {LOCAL_PEER!r} is the in-process one; give served "
                                      "peers another name")
                self.peers[name] = self._link(name, address)
        except BaseException:
            self.close()
            raise

    def _link(self, name: str, address: str) -> PeerLink:
        """A new connection to peer `name`, its batches stamped with this trace's steps."""
        return PeerLink(name, address, policy=self.policy, cubecl_legacy=self.cubecl_legacy,
                        step=lambda: self.trace.step)

    def open(self, device: Device) -> RemoteSession:
        """A served device's session (Burn's session `Init` with its device index)."""
        link = self.peers[device.peer]
        bare = str(Device(device.kind, device.index, LOCAL_PEER, device.profile))
        if bare not in link.devices:
            raise DeviceError(f"peer {device.peer} ({link.address}) serves "
                              f"{', '.join(link.devices)}, not {bare}")
        link.request({"k": P.OPEN, "device": str(device)})
        return RemoteSession(device, link, self)

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
        target.send_control({"k": P.PUBLISH, "transfer": transfer_id, "data": encode_data(data)})

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

    def run(self, first: SessionPort | None = None) -> None:
        """Sync every touched peer, run the in-process sessions meanwhile, then collect."""
        waiting, gone = {}, []
        for link in self.peers.values():
            if link.unsynced and not link.alive:
                gone.append(link)  # it went away while this step sent it tasks
            elif link.unsynced:
                mine = first is not None and getattr(first, "link", None) is link
                try:
                    link.end_step()
                    link.unsynced = 0
                    waiting[link] = link.send_request({
                        "k": P.SYNC, "sent": link.sent,
                        "first": first.label if first is not None and mine else None})
                except PeerError:
                    gone.append(link)
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
        for link, request_id in waiting.items():
            try:
                answer = link.answer(request_id)
            except PeerError:
                if link.alive:
                    raise
                gone.append(link)
                continue
            self._states(link, answer["sessions"])
            if answer.get("error"):
                errors.append(decode_error(answer["error"]))
            notes += answer.get("notes") or []
        if errors or notes:  # a failed step: did a peer it touched die meanwhile?
            gone += [link for link in waiting if link not in gone and not self._answers(link)]
        lost = [self.bury(link, "during this step") for link in gone]
        if lost and not self.legacy:  # the fix: the live peers undo the step (settle)
            raise PeerLost("; ".join([*lost, *map(str, errors)]) + "; every peer still there "
                           "undoes the step")
        if errors:
            raise _combined(errors, notes)
        if notes and not self.legacy:
            raise TransferTimedOut("; ".join(notes) + "; RouterLab's fix undoes the step on "
                                   "every peer (Burn logs it and loses the tensor)")
        if not self.journal.active:  # a drop outside any step: it is its own step
            self.settle(True)

    def _push_never(self) -> None:
        """Tell a served target that the bytes it waits for will never come (the in-process
        source ended), as a served source would answer its download."""
        for transfer_id, target in list(self._pushes.items()):
            source = self.sessions.get(self.transfers[transfer_id][0])
            if source is not None and source.ended is not None:
                target.send_control({"k": P.PUBLISH, "transfer": transfer_id, "data": None,
                                     "reason": f"its source {source.label} ended"})
                del self._pushes[transfer_id]

    def settle(self, kept: bool) -> None:
        """Commit (or roll back) the step on every peer it touched; a kept step's events join
        the runtime's trace."""
        self._pushes.clear()
        self.sources.clear()  # downloads into the in-process peer belong to the step that ends
        self.failed.clear()
        touched = [link for link in self.peers.values() if link.touched and link.alive]
        waiting, lost = {}, []
        for link in touched:
            try:
                if kept:
                    link.end_step()  # nothing is left once the step ran; sent as before if so
                else:
                    link.discard()  # never sent, never run: nothing to undo on the peer
                waiting[link] = link.send_request({"k": P.COMMIT if kept else P.ROLLBACK})
            except PeerError:
                lost.append(self.bury(link, "before the step could be settled"))
        for link, request_id in waiting.items():
            link.touched, link.sent, link.unsynced = False, 0, 0
            try:
                answer = link.answer(request_id)
            except PeerError:
                if link.alive:
                    raise
                lost.append(self.bury(link, "before the step could be settled"))
                continue
            self._states(link, answer["sessions"])
            self._kept(link, answer.get("kept"))
            self.trace.events.extend(tuple(event) for event in answer.get("events") or ())
        if lost and kept and not self.legacy:
            raise PeerLost("; ".join(lost) + "; the step was kept on every other peer")

    def _kept(self, link: PeerLink, kept: Mapping[str, list[list[Any]]] | None) -> None:
        for session in self._sessions_of(link):
            if kept is not None and session.label in kept:
                session.last_kept = kept[session.label]

    def _sessions_of(self, link: PeerLink) -> list[RemoteSession]:
        return [s for s in self.sessions.values()  # type: ignore[misc]
                if isinstance(s, RemoteSession) and s.link is link]

    def bury(self, link: PeerLink, when: str) -> str:
        """A peer that went away: end its sessions and say exactly what it held at the last
        kept step (a dead process cannot be rolled back; what it held is lost)."""
        link.alive = False
        link.unsynced = 0
        link.discard()
        held = [f"#{row[0]} ({row[1]} {row[2]}) on {session.label}"
                for session in self._sessions_of(link) for row in session.last_kept]
        what = ("it held " + ", ".join(held) + " at the last kept step: lost") if held else \
            "it held nothing at the last kept step"
        text = (f"peer {link.name} ({link.address}, pid {link.pid}) went away"
                f"{' ' + when if when else ''}: {what}")
        for session in self._sessions_of(link):
            if session.ended is None:
                session.end(text)
        self.trace.record("lost", link.name, None, None, 0, text)
        return text

    # --- faults --------------------------------------------------------------------------------

    def inject(self, fault: Any) -> str:
        """Send a fault (`routerlab.core.serving.faults.Fault`) to its peer; a restart is
        followed by a reconnect, as a client that notices would do."""
        link = self.peers.get(fault.target or "")
        if link is None:
            raise DeviceError(f"{fault.describe()}: {fault.target!r} is not a served peer of "
                              f"this runtime (served: {', '.join(self.peers) or 'none'})")
        answer = link.request({"k": P.FAULT, "fault": fault.wire()})
        if fault.wire()["kind"] == "restart":
            link.wait_closed(RESTART_WAIT_S)
            return self.reconnect(link.name)
        return str(answer["armed"])

    def reconnect(self, name: str) -> str:
        """Open a new connection to peer `name`. If it is a new instance of the peer (it
        restarted), every id its devices held is stale: the fix refuses them on the client
        (`StaleHandle`); `legacy` sends them on, as a Burn client would."""
        old = self.peers[name]
        new = self._link(name, old.address)
        if old.alive:
            old.close()
        self.peers[name] = new
        restarted = new.instance != old.instance
        why = f"{name} restarted (instance {old.instance} -> {new.instance}): lost with it"
        for session in self._sessions_of(old):
            if restarted:
                session.lost.update((int(row[0]), why) for row in session.last_kept)
                session.last_kept = []
            new.request({"k": P.OPEN, "device": session.label})
            session.link, session.ended, session.panicked = new, None, False
        stale = sum(len(session.lost) for session in self._sessions_of(new))
        return f"reconnected to {name}" + (f"; it restarted: {stale} stale id(s)"
                                           if restarted else "")

    def wire_view(self) -> TableView:
        """What crossed which socket, from the connections' own counters: the client's
        `/session` connections, and each served peer's `/data` downloads."""
        rows: list[list[Any]] = []
        for link in self.peers.values():
            rows.append([f"client -> {link.name} /session", link.wire["frames out"],
                         link.wire["out"]])
            rows.append([f"{link.name} -> client /session", link.wire["frames in"],
                         link.wire["in"]])
        addresses = {link.address: name for name, link in self.peers.items()}
        for name, link in self.peers.items():
            if not link.alive:
                continue
            stats = link.request({"k": P.STATS})
            for address, size in sorted(stats["downloaded"].items()):
                rows.append([f"{addresses.get(address, address)} -> {name} /data", None, size])
        for address, size in sorted(self.links.received.items()):
            rows.append([f"{addresses.get(address, address)} -> client /data", None, size])
        return TableView("What crossed which socket", ["socket", "frames", "bytes"], rows,
                         caption="real counters of this client's connections and of the peers' "
                                 "/data downloads (MessagePack frames, headers included)")

    @staticmethod
    def _answers(link: PeerLink) -> bool:
        """Whether `link`'s peer still answers (one round trip, on a failed step only)."""
        try:
            link.request({"k": P.STATS})
        except PeerError:
            if link.alive:
                raise
            return False
        return True

    def _states(self, link: PeerLink, states: Mapping[str, Any]) -> None:
        """Mirror the peer's session states (a panic there ends the session here too)."""
        for session in self.sessions.values():
            if isinstance(session, RemoteSession) and session.link is link:
                ended, panicked = states.get(session.label, (None, False))
                if ended:
                    session.end(ended, panicked)

    def close(self) -> None:
        for link in self.peers.values():
            if link.alive:
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
