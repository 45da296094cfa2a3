"""A short, bounded look at a served peer: is it there, what does it serve (`routerlab doctor`).

The probe opens `/session` with the peer's token (`remote.auth`), says `Init` as a client would,
reads the answer and closes, all within `PROBE_TIMEOUT_S`; the peer ends the probe's (empty)
sessions when it goes. A peer that refuses the token is a failed probe saying where the token
comes from.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from websockets.exceptions import InvalidStatus, WebSocketException
from websockets.sync.client import connect

from ..remote import protocol as P
from ..remote.auth import bearer, refusal
from ..remote.protocol import CodecError

PROBE_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class PeerProbe:
    name: str
    address: str
    ok: bool
    detail: str


def probe_peer(name: str, address: str, timeout: float = PROBE_TIMEOUT_S) -> PeerProbe:
    """Whether `address` answers as a RouterLab peer within `timeout` seconds, and what it
    serves (or why not)."""
    start = time.monotonic()
    try:
        with connect(f"{address}/session", open_timeout=timeout, close_timeout=timeout,
                     compression=None, additional_headers=bearer(address)) as ws:
            for frame in P.pack([{"k": P.INIT, "id": 1, "version": P.VERSION, "peer": name,
                                  "client": secrets.randbits(63), "policy": "native"}]):
                ws.send(frame)
            (answer,) = P.receive(lambda: ws.recv(
                timeout=max(timeout - (time.monotonic() - start), 0.01)))
            for frame in P.pack([{"k": P.CLOSE}]):
                ws.send(frame)
    except InvalidStatus as error:
        return PeerProbe(name, address, False, refusal(error.response.status_code, address))
    except (OSError, TimeoutError, WebSocketException, CodecError, ValueError) as error:
        return PeerProbe(name, address, False, f"not reachable: {type(error).__name__}: {error}")
    if answer.get("k") != P.INIT:
        return PeerProbe(name, address, False, f"not a RouterLab peer: {answer.get('message')}")
    took = (time.monotonic() - start) * 1000
    return PeerProbe(name, address, True, f"{', '.join(answer['devices'])} (pid {answer['pid']}; "
                                          f"answered in {took:.0f} ms)")
