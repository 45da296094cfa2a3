"""The client side of served peers: devices in another process, reached over a WebSocket with
burn-remote's protocol (docs/remote.md). It sits below the runtime: `Runtime(peers={...})` uses it,
and nothing here creates a runtime (the serving side, `routerlab.core.serving`, sits above).

* `protocol`, `codec`: the messages and the model's values as MessagePack data;
* `transfers`, `datalink`, `readback`: the bytes path between processes (downloads, the Iroh and
  WebSocket waits, a readback streamed as it is copied);
* `link`, `deployment`: the client, `Runtime(peers={...})`;
* `address`: naming peers (`--peer`, `[peers]`).

Names load on first use (PEP 562): reading a scenario or starting the CLI must not import
websockets (whose import alone costs about 0.15 s) unless a peer is served.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .address import check_address, parse_peers
    from .deployment import Deployment, RemoteSession
    from .link import PeerError, PeerLink, PeerLost
    from .protocol import CodecError
    from .transfers import HANG_BOUND_S, IROH_WAIT_S

_WHERE = {
    "check_address": "address", "parse_peers": "address", "Deployment": "deployment",
    "RemoteSession": "deployment",
    "PeerError": "link", "PeerLink": "link", "PeerLost": "link", "CodecError": "protocol",
    "HANG_BOUND_S": "transfers", "IROH_WAIT_S": "transfers",
}
__all__ = [
    "HANG_BOUND_S", "IROH_WAIT_S", "CodecError", "Deployment", "PeerError", "PeerLink",
    "PeerLost", "RemoteSession", "check_address", "parse_peers",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
