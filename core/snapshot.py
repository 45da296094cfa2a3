"""What a deployment looks like right now, as plain data: per server process (peer), each device
session with its state and the ids in its registry.

It is the data behind a drawing of the router (the notebooks draw it as SVG): the model only
describes itself here and knows nothing of how it is drawn. A burn-remote server hosts one
backend (`crates/burn-remote/src/server/builder.rs:77-89`) and keeps one handle registry per
session (`crates/burn-remote/src/server/session.rs`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .router.port import SessionPort


@dataclass(frozen=True)
class SessionState:
    """One device session: its device, `alive` / `parked` / `ended`, and its registry's ids."""

    device: str
    state: str
    ids: tuple[int, ...]


@dataclass(frozen=True)
class PeerState:
    """One server process and the sessions it runs, in the order the devices were created."""

    peer: str
    backend: str
    sessions: tuple[SessionState, ...]


@dataclass(frozen=True)
class Deployment:
    """Every server of a runtime."""

    peers: tuple[PeerState, ...]

    @property
    def sessions(self) -> int:
        return sum(len(p.sessions) for p in self.peers)


def describe(sessions: Iterable[SessionPort]) -> Deployment:
    """The deployment of these sessions, grouped by peer (first seen first)."""
    by_peer: dict[str, list[SessionPort]] = {}
    for session in sessions:
        by_peer.setdefault(session.device.peer, []).append(session)
    return Deployment(tuple(
        PeerState(peer, str(group[0].device.profile), tuple(_state(s) for s in group))
        for peer, group in by_peer.items()))


def _state(session: SessionPort) -> SessionState:
    state = "ended" if session.ended is not None else (
        "parked" if session.parked_on is not None else "alive")
    ids = tuple(session.handle_ids())
    return SessionState(str(session.device), state, ids)
