"""Served peers in a notebook: start them on loopback, stop them with the kernel, inject faults.

`start_peers(2)` starts two `routerlab serve` processes (`LocalPeers`; `start_pairs(n)`, n
deployments of two at once) and registers their stop
with the interpreter's exit, so a kernel that ends (or restarts) leaves no server behind; a kernel
that is killed leaves none either, since each peer stops when its parent goes (docs/remote.md).
`fault(rt, "kind=kill,peer=peer1,when=during")` injects a fault (docs/faults.md) without the
`step=` a scenario needs. `holdings(rt)` is one table of every device's ids, its session and its
peer; the wire table and the Burn-vs-fix table are the core's own (`wire`, `fault_table`).
"""

from __future__ import annotations

import atexit
from collections.abc import Sequence
from typing import Any

from ..core import TableView
from ..core.serving import LocalPeers, parse_fault, reactions_view

_started: list[LocalPeers] = []


def start_peers(count: int = 2, devices: Sequence[str] = ("cpu:0", "cpu:1")) -> LocalPeers:
    """`count` peers on loopback (`peer1` … `peerN`), stopped when the kernel ends. They share
    one token (`ROUTERLAB_TOKEN`, or a fresh one), remembered in this kernel for their addresses:
    `Runtime(peers=...)` presents it with nothing to set (docs/remote.md, "Security")."""
    peers = LocalPeers(count, devices)
    peers.start()
    _started.append(peers)
    atexit.register(peers.stop)
    return peers


def start_pairs(count: int) -> list[dict[str, str]]:
    """`count` deployments of two peers, `{"peer1": address, "peer2": address}`, every process
    started at once. They share one `peer2` (each client's sessions on a peer are its own) and
    each has its own `peer1`, so a lesson can kill one without touching the others."""
    first, *others = start_peers(count + 1).addresses.values()
    return [{"peer1": address, "peer2": first} for address in others]


def stop_peers() -> None:
    """Stop every peer this kernel started (also done when the kernel ends)."""
    while _started:
        _started.pop().stop()


def fault(rt: Any, spec: str) -> str:
    """Inject a fault into `rt`'s served peers now: the `--fault` fields, `step=` optional."""
    text = spec if "step=" in spec else f"step=1,{spec}"
    return str(rt.server.inject(parse_fault(text)))


def wire(rt: Any, since: TableView | None = None) -> TableView:
    """What crossed which socket (the connections' own counters): everything so far, or only
    what crossed after `since` (an earlier `wire(rt)`)."""
    now = rt.server.wire_view()
    if since is None:
        return now  # type: ignore[no-any-return]
    before = {row[0]: row for row in since.rows}
    rows = [[name, *(None if v is None else v - (before.get(name, [0, 0, 0])[i + 1] or 0)
                     for i, v in enumerate(values))] for name, *values in now.rows]
    return TableView(f"{now.title}, since the last look", now.columns, rows, now.caption)


def fault_table() -> TableView:
    """Every fault: what Burn at the pin does beside what RouterLab's fix does."""
    return reactions_view()


def holdings(rt: Any, title: str = "Who holds what") -> TableView:
    """Every device of `rt`: the ids its registry holds and its session's state."""
    rows: list[list[Any]] = []
    styles: dict[int, str] = {}
    for device, view in rt.registries().items():
        state = view.caption.split("; served by")[0]
        if state.startswith("LOST") or "ENDED" in state:
            styles[len(rows)] = "error"
        rows.append([device, ", ".join(f"#{row[0]}" for row in view.rows) or "none", state])
    return TableView(title, ["device", "ids", "session"], rows, styles=styles)


__all__ = ["fault", "fault_table", "holdings", "start_pairs", "start_peers", "stop_peers",
           "wire"]
