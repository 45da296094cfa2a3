"""The serving side of served peers: a process that hosts the model's sessions for clients
(`routerlab serve`). It sits above the runtime, since a peer runs one (docs/remote.md).

* `host`: `PeerHost`, the server, running the in-process model's sessions;
* `peers`: `run_peer` and `LocalPeers` (`routerlab serve --local N`);
* `faults`: faults injected into served peers, Burn's reaction beside the fix's (docs/faults.md);
* `probe`: a short look at a peer (`routerlab doctor`).

Names load on first use (PEP 562), as in `routerlab.core.remote`: websockets is imported only
when a peer is served or probed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .admit import CLIENT_SHARE_BYTES
    from .faults import BURN, FIX, Fault, FaultKind, parse_fault, reactions_view, run_with_faults
    from .host import PeerHost
    from .peers import LocalPeers, run_peer, serve_local
    from .probe import PeerProbe, probe_peer

_WHERE = {
    "CLIENT_SHARE_BYTES": "admit",
    "PeerHost": "host", "LocalPeers": "peers", "run_peer": "peers", "serve_local": "peers",
    "BURN": "faults", "FIX": "faults", "Fault": "faults", "FaultKind": "faults",
    "parse_fault": "faults", "reactions_view": "faults", "run_with_faults": "faults",
    "PeerProbe": "probe", "probe_peer": "probe",
}
__all__ = [
    "CLIENT_SHARE_BYTES",
    "BURN", "FIX", "Fault", "FaultKind", "LocalPeers", "PeerHost", "PeerProbe", "parse_fault",
    "probe_peer", "reactions_view", "run_peer", "run_with_faults", "serve_local",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
