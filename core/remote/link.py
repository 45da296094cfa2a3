"""`PeerLink`: a client's connection to one served peer (burn-remote's client service,
`crates/burn-remote/src/client/service/*`).

Tasks are fire-and-forget and batched as burn-remote's client batches them, with the very model
the in-process wire replays (core/wire/): each device has its `OutgoingBatch` with Burn's
thresholds (`crates/burn-remote/src/client/service.rs:110-114`, `service/batch.rs`), and `submit`
pushes a task into it and sends the batch as one frame when Burn's service would (`push`: the
fourth task, a megabyte of data, an upload, a transfer task, a call that waits for an answer).
One thing is RouterLab's: a step ends with a `Sync` that runs it on the peer, so what a batch
still holds leaves then (`end_step`, `Flush.STEP`), where Burn's client would keep it. The
step's own messages (`Open`, `Sync`, `Commit`, `Publish`, ...) are RouterLab's and travel in
frames of their own. A message that expects an answer gets a request id, and `answer` reads
frames until the response with that id arrives, handing the `ReadTensor` responses it meets to
the replies waiting for them (`client/service/pending.rs`).
Every wait is bounded by `REQUEST_TIMEOUT_S`: a peer that does not answer is an error, not a hang.
The upgrade carries the token for the peer (`auth`: `ROUTERLAB_TOKEN`, or the one this process's
`LocalPeers` made); a peer that refuses it is one line naming where the token comes from.
"""

from __future__ import annotations

import contextlib
import itertools
import secrets
import time
from collections.abc import Callable
from typing import Any

from ..base.errors import RouterLabError
from ..base.policies import Policy
from ..router.session import Reply
from ..wire.batch import OutgoingBatch, WireTask
from ..wire.queue import Batch, Flush, push
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

    def __init__(self, name: str, address: str, *, policy: Policy, cubecl_legacy: bool,
                 step: Callable[[], int] = lambda: 0) -> None:
        """`step` says which step of the client's trace is running (each batch is stamped)."""
        self.name, self.address = name, address.rstrip("/")
        self.key = secrets.randbits(63)
        """This client's id on every peer (Burn's `SessionId`, random so clients never meet)."""
        self.batches: dict[str, OutgoingBatch] = {}
        """Each device's outgoing batch, made on its first task (module docstring)."""
        self.record: Callable[[Batch], None] | None = None
        """Called with each batch of tasks as its frame leaves (what a lesson or a test looks
        at); the frames themselves carry only the messages."""
        self._step = step
        self._batches_sent = 0
        self.replies: dict[int, Reply] = {}
        self.touched = False
        """Whether the step in progress sent this peer anything (it must then be settled)."""
        self.sent = 0
        """Tasks sent in the step in progress (its `Sync` says so: a peer that got fewer knows
        one was lost on the way)."""
        self.unsynced = 0
        """Tasks submitted since the last `Sync` (the step must sync this peer)."""
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

    def submit(self, device: str, message: dict[str, Any], nbytes: int = 0) -> None:
        """One of Burn's tasks for `device` (its kind is `message["k"]`, `nbytes` the tensor
        data it carries), through the device's outgoing batch: sent in a frame when Burn's
        service would send it, else with a later task or at the step's end (`end_step`)."""
        batch = self.batches.get(device)
        if batch is None:
            batch = self.batches[device] = OutgoingBatch()
        self.touched = True
        self.sent += 1
        self.unsynced += 1
        reason = push(batch, WireTask(message["k"], device, nbytes=nbytes, payload=message))
        if reason is not None:
            try:
                self._flush(device, batch, reason)
            except PeerError:
                if self.alive:
                    raise
                # The peer went away: the step finds it so when it syncs (`Deployment.run`),
                # where it is named with what it held, as a task that was never sent is.

    def end_step(self) -> None:
        """The step ends (RouterLab's `Sync` follows): send what each batch still holds."""
        for device, batch in self.batches.items():
            if not batch.is_empty():
                self._flush(device, batch, Flush.STEP)

    def discard(self) -> None:
        """Forget the tasks no frame carried yet (a step rolled back before it synced)."""
        for batch in self.batches.values():
            batch.take()

    def _flush(self, device: str, batch: OutgoingBatch, reason: Flush) -> None:
        """Send `batch` as one frame (service.rs:648-660), and say so to `record`."""
        nbytes = batch.bytes
        tasks = batch.take()
        self._send(P.pack([task.payload for task in tasks]))
        self._batches_sent += 1
        if self.record is not None:
            self.record(Batch(self._batches_sent, device, tuple(tasks), nbytes, reason,
                              self._step()))

    def send_control(self, message: dict[str, Any]) -> None:
        """One of RouterLab's step messages that needs no answer (`Publish`), in a frame of
        its own; the step must then be settled on this peer."""
        self.touched = True
        self._send(P.pack([message]))

    def next_id(self) -> int:
        return next(self._ids)

    def send_request(self, message: dict[str, Any]) -> int:
        """Send `message`, one of RouterLab's requests, in a frame of its own with a fresh
        request id; return the id (a `Sync` is sent after `end_step`)."""
        request_id = message["id"] = self.next_id()
        self._send(P.pack([message]))
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
