"""The door of a served peer: every WebSocket upgrade is checked before a connection exists.

An upgrade is refused, with an HTTP status and one line on both sides, when its route is not
`/session` or `/data` (404), when it carries an `Origin` the peer was not told to allow
(`--allow-origin`, 403: a web page the user opened cannot drive the peer), when its token is
missing (401) or wrong (403; `routerlab.core.remote.auth`), when it sends the Origin or the
token twice (400: which one would the check have read?), or when the peer already holds as many
connections of that route as it takes (503; `MAX_SESSIONS`, `MAX_DATA`): one client can never
take every thread and socket (docs/limits.md). The peer's line goes through its `Throttle`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ..remote.auth import MISSING, verdict

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection
    from websockets.http11 import Request, Response

MAX_SESSIONS = 32
"""`/session` connections a peer serves at once; each has one worker thread (`host.Worker`)."""
MAX_DATA = 64
"""`/data` connections a peer serves at once (another peer's downloads; no thread each)."""
ROUTES = ("/session", "/data")
ONCE = ("Origin", "Authorization")
"""Headers the gate reads: an upgrade that sends one of them more than once is refused (400)."""


class Gate:
    """What a peer checks at each upgrade (see the module)."""

    def __init__(self, token: str, origins: Iterable[str] = (),
                 say: Callable[[str], None] = print,
                 open_count: Callable[[str], int] = lambda route: 0,
                 admitted: Callable[[ServerConnection], None] = lambda connection: None) -> None:
        self.token = token
        self.origins = {o.rstrip("/") for o in origins}
        self.say = say
        """Where the peer's side of a refusal is written (stderr under `routerlab serve`)."""
        self.open_count = open_count
        """How many connections of a route are open now (the host counts them)."""
        self.admitted = admitted
        """Told of each connection let through (counted from then on)."""

    def why_not(self, path: str, origin: str | None,
                authorization: str | None) -> tuple[int, str] | None:
        """None to let the upgrade through, else the status and the one line to answer."""
        if path not in ROUTES:
            return 404, f"unknown route {path[:64]!r}: /session or /data"
        if origin is not None and origin.rstrip("/") not in self.origins:
            return 403, (f"origin {origin[:128]!r} is not allowed (routerlab serve "
                         "--allow-origin ORIGIN allows one)")
        status = verdict(authorization, self.token)
        if status is not None:
            return status, ("missing token: send Authorization: Bearer <token>"
                            if status == MISSING else "wrong token")
        bound = MAX_SESSIONS if path == "/session" else MAX_DATA
        if self.open_count(path) >= bound:
            return 503, f"this peer serves {bound} {path} connections at once; try again later"
        return None

    def __call__(self, connection: ServerConnection, request: Request) -> Response | None:
        """websockets' `process_request`: answer a refused upgrade here, before the handler."""
        refused = _repeated(request) or self.why_not(
            request.path, request.headers.get("Origin"), request.headers.get("Authorization"))
        if refused is None:
            self.admitted(connection)
            return None
        status, line = refused
        where = connection.remote_address
        self.say(f"refused a {request.path[:64]} upgrade from {where[0]}:{where[1]}: {line} "
                 f"(HTTP {status})" if where else f"refused an upgrade: {line} (HTTP {status})")
        return connection.respond(status, f"routerlab peer: {line}\n")


def _repeated(request: Request) -> tuple[int, str] | None:
    """400 and its line when a header the gate reads comes more than once (websockets'
    `headers.get` would raise, and a raise here is a 500 with a traceback in the log)."""
    for name in ONCE:
        count = len(request.headers.get_all(name))
        if count > 1:
            return 400, f"{name} header sent {count} times; send it once"
    return None
