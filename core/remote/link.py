"""`PeerLink`: a client's connection to one served peer (burn-remote's client service,
`crates/burn-remote/src/client/service/*`).

Tasks are fire-and-forget: `post` queues them and `flush` sends the queue as one frame, as the
client's outgoing batch does (`client/service/batch.rs`). A message that expects an answer gets a
request id, and `answer` reads frames until the response with that id arrives, handing the
`ReadTensor` responses it meets to the replies waiting for them (`client/service/pending.rs`).
Every wait is bounded by `REQUEST_TIMEOUT_S`: a peer that does not answer is an error, not a hang.
The upgrade carries the token for the peer (`auth`: `ROUTERLAB_TOKEN`, or the one this process's
`LocalPeers` made); a peer that refuses it is one line naming where the token comes from.
"""

from __future__ import annotations

import contextlib
import itertools
import secrets
import time
from typing import Any

from ..base.errors import RouterLabError
from ..base.policies import Policy
from ..router.session import Reply
from . import protocol as P
from .auth import bearer, refusal
from .codec import decode_data
from .transfers import CONNECT_TIMEOUT_S

REQUEST_TIMEOUT_S = 120.0
"""The longest a client waits for one answer (a 64 Mi-element move takes well under a second)."""


class PeerError(RouterLabError):
    """A served peer that cannot be reached, went away, or answered outside the protocol."""


class PeerLost(PeerError):
    """A served peer went away in the middle of a step: the step is undone on every peer still
    there, and the error says what the lost one held (a dead process cannot be rolled back;
    docs/faults.md)."""


class PeerLink:
    """One client's `/session` connection to one peer, named as the client names it."""

    def __init__(self, name: str, address: str, *, policy: Policy, cubecl_legacy: bool) -> None:
        self.name, self.address = name, address.rstrip("/")
        self.key = secrets.randbits(63)
        """This client's id on every peer (Burn's `SessionId`, random so clients never meet)."""
        self.outbox: list[dict[str, Any]] = []
        self.replies: dict[int, Reply] = {}
        self.touched = False
        """Whether the step in progress sent this peer anything (it must then be settled)."""
        self.sent = 0
        """Tasks sent in the step in progress (its `Sync` says so: a peer that got fewer knows
        one was lost on the way)."""
        self.alive = True
        """False once the connection failed: the peer went away."""
        self.wire = {"out": 0, "in": 0, "frames out": 0, "frames in": 0}
        """Bytes and frames this connection carried (the real counters a lesson shows)."""
        self._ids = itertools.count(1)
        self._stack = contextlib.ExitStack()  # websockets wants its connection as a context
        from websockets.exceptions import InvalidStatus, WebSocketException  # on first use
        from websockets.sync.client import connect

        try:
            self._ws = self._stack.enter_context(connect(
                f"{self.address}/session", max_size=P.MAX_FRAME_BYTES,
                open_timeout=CONNECT_TIMEOUT_S, compression=None,
                additional_headers=bearer(self.address)))
            self._ws.recv_bufsize = P.RECV_BUFFER_BYTES
        except InvalidStatus as error:
            raise PeerError(f"peer {name}: {refusal(error.response.status_code, self.address)}"
                            ) from None
        except (OSError, TimeoutError, WebSocketException) as error:
            raise PeerError(f"peer {name}: cannot reach {self.address} ({error}); is "
                            f"`routerlab serve` running there?") from None
        info = self.request({"k": P.INIT, "version": P.VERSION, "client": self.key,
                             "peer": name, "policy": policy.value,
                             "cubecl_legacy": cubecl_legacy})
        self.devices: list[str] = list(info["devices"])
        self.pid: int = int(info["pid"])
        self.instance: str = str(info.get("instance", ""))
        """Which run of the peer this is (a restarted peer answers with a new one)."""

    def post(self, message: dict[str, Any]) -> None:
        """Queue a fire-and-forget message (sent by the next `flush` or request)."""
        self.outbox.append(message)
        self.touched = True

    def next_id(self) -> int:
        return next(self._ids)

    def flush(self) -> None:
        if self.outbox:
            frames, self.outbox = P.pack(self.outbox), []
            self._send(frames)

    def send_request(self, message: dict[str, Any]) -> int:
        """Send `message` (after anything queued) with a fresh request id; return the id."""
        request_id = message["id"] = self.next_id()
        self.outbox.append(message)
        self.flush()
        return request_id

    def answer(self, request_id: int) -> dict[str, Any]:
        """Read until the response to `request_id`; an `Error` for it raises `PeerError`."""
        from websockets.exceptions import WebSocketException

        deadline = time.monotonic() + REQUEST_TIMEOUT_S
        while True:  # bounded: every recv waits at most until the deadline
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError(f"no answer within {REQUEST_TIMEOUT_S:g} s")
                messages = P.receive(lambda: self._counted(self._ws.recv(
                    timeout=max(deadline - time.monotonic(), 0.001))))
            except (OSError, TimeoutError, WebSocketException) as error:
                self.alive = False
                raise PeerError(f"peer {self.name} ({self.address}) went away: {error}") from None
            found = None
            for message in messages:
                if message["k"] == P.READ_TENSOR and message.get("id") in self.replies:
                    self.replies.pop(message["id"]).value = decode_data(message["data"])
                elif message["k"] == P.ERROR and message.get("id") in (request_id, None):
                    raise PeerError(f"peer {self.name}: {message.get('message')}")
                elif message.get("id") == request_id:
                    found = message
            if found is not None:
                return found

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        return self.answer(self.send_request(message))

    def _send(self, frames: list[bytes | memoryview]) -> None:
        from websockets.exceptions import WebSocketException

        for frame in frames:  # refused here, whole, rather than cut by the peer
            P.check_frame(len(frame))
        try:
            for frame in frames:
                self._ws.send(P.fragments(frame))
                self.wire["out"] += len(frame)
                self.wire["frames out"] += 1
        except (OSError, WebSocketException) as error:
            self.alive = False
            raise PeerError(f"peer {self.name} ({self.address}) went away: {error}") from None

    def _counted(self, frame: str | bytes) -> str | bytes:
        self.wire["in"] += len(frame)
        self.wire["frames in"] += 1
        return frame

    def wait_closed(self, timeout: float) -> None:
        """Read (and drop) until the peer closes this connection, at most `timeout` seconds (a
        restarting peer closes every connection before it answers anew)."""
        from websockets.exceptions import WebSocketException

        deadline = time.monotonic() + timeout
        while self.alive and (left := deadline - time.monotonic()) > 0:  # bounded in time
            try:
                self._ws.recv(timeout=left)
            except (OSError, TimeoutError, WebSocketException):
                self.alive = False

    def close(self) -> None:
        """`Close`, then the connection: the peer ends this client's sessions."""
        try:
            self._send(P.pack([{"k": P.CLOSE}]))
        except PeerError:
            pass
        self._stack.close()
