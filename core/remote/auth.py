"""Who may talk to a served peer: a shared secret token (docs/remote.md, "Security").

Every WebSocket upgrade to a peer (`/session` from a client, `/data` from another peer) carries
`Authorization: Bearer <token>`; the peer compares it in constant time (`hmac.compare_digest`)
and refuses a missing one with HTTP 401 and a wrong one with 403, before any session exists.

Where a client's token comes from, first match wins:

1. the token of a `LocalPeers` this process started, remembered for those peers' addresses
   (`remember`), so `Runtime(peers=local.addresses)` works with nothing to set;
2. the token this process serves with (`serve_with`): a served peer presents its own token to
   the peers it downloads from, so peers that move tensors between them share one token;
3. the environment variable `ROUTERLAB_TOKEN`.

A token is never read from the command line (argv is visible to every user of the machine).
Burn's WebSocket transport authorizes every session (`|_init| Ok(())`,
`crates/burn-remote/src/transport/websocket/server.rs:54-57`); its `SessionInit` carries an opaque
`authorization` credential (`crates/burn-remote/src/shared/task.rs:104-111`) that only the Iroh
transport hands to an authorizer. The bearer token is RouterLab's own.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading

TOKEN_ENV = "ROUTERLAB_TOKEN"
"""The environment variable a client reads its token from (and `routerlab serve` its own)."""
TOKEN_BYTES = 32
"""Random bytes in a generated token (256 bits, URL-safe base64: 43 characters)."""
MISSING, WRONG = 401, 403

_lock = threading.Lock()
_remembered: dict[str, str] = {}
_serving: list[str] = []


def new_token() -> str:
    """A fresh random token (`secrets`: the operating system's CSPRNG)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_from_env() -> str | None:
    """`ROUTERLAB_TOKEN`, when set and not blank."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    return token or None


def remember(addresses: list[str], token: str) -> None:
    """The token of peers this process started (`LocalPeers`), for their addresses."""
    with _lock:
        _remembered.update((a.rstrip("/"), token) for a in addresses)


def forget(addresses: list[str]) -> None:
    with _lock:
        for address in addresses:
            _remembered.pop(address.rstrip("/"), None)


def serve_with(token: str) -> None:
    """This process serves with `token`: it presents it to the peers it downloads from."""
    with _lock:
        _serving[:] = [token]


def token_for(address: str) -> str | None:
    """The token to present to the peer at `address` (see the module), or None."""
    with _lock:
        known = _remembered.get(address.rstrip("/")) or (_serving[0] if _serving else None)
    return known or token_from_env()


def bearer(address: str) -> dict[str, str]:
    """The upgrade's `Authorization` header for `address` (none when no token is known: the
    peer then answers 401, and the client says where to find one)."""
    token = token_for(address)
    return {"Authorization": f"Bearer {token}"} if token else {}


def verdict(header: str | None, token: str) -> int | None:
    """None when `header` carries `token`; else 401 (missing) or 403 (wrong). The comparison
    takes the same time wherever the first difference is (`hmac.compare_digest`)."""
    scheme, _, given = (header or "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        return MISSING
    ok = hmac.compare_digest(given.strip().encode("utf-8", "surrogateescape"),
                             token.encode("utf-8"))
    return None if ok else WRONG


def refusal(status: int, address: str) -> str:
    """The client's one line for a refused upgrade."""
    if status == MISSING:
        return (f"{address} asks for a token and none was sent: set {TOKEN_ENV} to the token "
                "`routerlab serve` printed")
    if status == WRONG:
        return (f"{address} refused the token (HTTP 403: a wrong token, or an Origin it does not "
                f"allow): set {TOKEN_ENV} to the token `routerlab serve` printed")
    return f"{address} refused the connection (HTTP {status})"
