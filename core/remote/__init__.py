"""Served peers: devices in another process, fed over a WebSocket with burn-remote's protocol
(docs/remote.md).

* `protocol`, `codec`: the messages and the model's values as MessagePack data;
* `host`: `PeerHost`, the server (`routerlab serve`), running the in-process model's sessions;
* `transfers`: the bytes path between processes (downloads, the Iroh and WebSocket waits);
* `link`, `deployment`: the client side, `Runtime(peers={...})`;
* `serving`: `run_peer` and `LocalPeers` (`routerlab serve --local N`);
* `faults`: faults injected into served peers, Burn's reaction beside the fix's (docs/faults.md);
* `probe`: a short look at a peer (`routerlab doctor`).
"""

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

__all__ = ["BURN", "FIX", "CodecError", "Deployment", "Fault", "FaultKind", "HANG_BOUND_S",
           "IROH_WAIT_S", "LocalPeers", "PeerError", "PeerHost", "PeerLink", "PeerLost",
           "PeerProbe", "RemoteSession", "parse_fault", "parse_peers", "probe_peer",
           "reactions_view", "run_peer", "run_with_faults", "serve_local"]
