"""Served peers: devices in another process, fed over a WebSocket with burn-remote's protocol
(docs/remote.md).

* `protocol`, `codec`: the messages and the model's values as MessagePack data;
* `host`: `PeerHost`, the server (`routerlab serve`), running the in-process model's sessions;
* `transfers`: the bytes path between processes (downloads, the Iroh and WebSocket waits);
* `link`, `deployment`: the client side, `Runtime(peers={...})`;
* `serving`: `run_peer` and `LocalPeers` (`routerlab serve --local N`);
* `address`: naming peers (`--peer`, `[peers]`);
* `faults`: faults injected into served peers, Burn's reaction beside the fix's (docs/faults.md);
* `probe`: a short look at a peer (`routerlab doctor`).

Names load on first use (PEP 562): reading a scenario or starting the CLI must not import
websockets (whose import alone costs about 0.15 s) unless a peer is served.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from routerlab.core.remote.address import parse_peers
    from routerlab.core.remote.deployment import Deployment, RemoteSession
    from routerlab.core.remote.faults import (
        BURN,
        FIX,
        Fault,
        FaultKind,
        parse_fault,
        reactions_view,
        run_with_faults,
    )
    from routerlab.core.remote.host import PeerHost
    from routerlab.core.remote.link import PeerError, PeerLink, PeerLost
    from routerlab.core.remote.probe import PeerProbe, probe_peer
    from routerlab.core.remote.protocol import CodecError
    from routerlab.core.remote.serving import LocalPeers, run_peer, serve_local
    from routerlab.core.remote.transfers import HANG_BOUND_S, IROH_WAIT_S

_WHERE = {
    "parse_peers": "address", "Deployment": "deployment", "RemoteSession": "deployment",
    "PeerHost": "host", "PeerError": "link", "PeerLink": "link", "CodecError": "protocol",
    "LocalPeers": "serving", "run_peer": "serving", "serve_local": "serving",
    "HANG_BOUND_S": "transfers", "IROH_WAIT_S": "transfers", "PeerLost": "link",
    "BURN": "faults", "FIX": "faults", "Fault": "faults", "FaultKind": "faults",
    "parse_fault": "faults", "reactions_view": "faults", "run_with_faults": "faults",
    "PeerProbe": "probe", "probe_peer": "probe",
}
__all__ = [
    "HANG_BOUND_S", "IROH_WAIT_S", "CodecError", "Deployment", "LocalPeers", "PeerError",
    "PeerHost", "PeerLink", "RemoteSession", "parse_peers", "run_peer", "serve_local",
    "BURN", "FIX", "Fault", "FaultKind", "PeerLost", "PeerProbe", "parse_fault", "probe_peer",
    "reactions_view", "run_with_faults",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
