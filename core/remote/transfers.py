"""The bytes path between processes: a target session downloads what its source published.

burn-remote's cross-peer move never passes through the client: the source session publishes the
`TensorData` on its server, and the target session's server opens a `/data` connection to the
source's server and downloads it (`change_backend_remote`, `crates/burn-remote/src/client/
runner.rs:449-487`; `download_tensor`, `crates/burn-communication/src/external_comm.rs:137-175`).
The source waits for its own expose before it answers: forever over WebSocket
(`get_exposed_tensor_bytes`, external_comm.rs:204-227), at most 300 s over Iroh
(`crates/burn-remote/src/transport/iroh/transfer.rs:78-110,138`).

`NetworkServer` is the model's `Server` (same sessions, scheduler, journal) with one change: a
transfer whose source lives in another process counts as published once its bytes have been
downloaded, and a download that fails hands the wait to the model's own reporting (`_give_up`
over Iroh, `_hang` over WebSocket). The wait is real here, so the Iroh timeout is scaled down
(`IROH_WAIT_S`), and RouterLab bounds the WebSocket one (`HANG_BOUND_S`) to report the hang.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..base.data import TensorData
from ..base.dtypes import QFloat
from ..base.errors import BurnPanic
from ..base.request import Transport
from ..base.trace import Trace
from ..fix.qtensor import ReceivedData
from ..router.handles import Journal
from ..router.ir import RegisterRemoteOp
from ..router.server import IROH_TIMEOUT_S, Server
from . import protocol as P
from .auth import TOKEN_ENV
from .codec import decode_data
from .datalink import DataSocket, Refused
from .protocol import CodecError
from .readback import Readback

DATA_CHANNEL = "crates/burn-communication/src/external_comm.rs:187-192"
"""Where a WebSocket download that cannot reach its source panics (`get_data_stream`)."""
IROH_OPEN = "crates/burn-remote/src/transport/iroh/transfer.rs:177-186"
"""Where an Iroh download that cannot reach its source logs the error and returns None."""
IROH_SCALE = 1000
"""Burn's Iroh wait, divided by this for teaching: 300 s becomes 0.3 s (docs/remote.md)."""
IROH_WAIT_S = IROH_TIMEOUT_S / IROH_SCALE
HANG_BOUND_S = 5.0
"""How long a source lets a WebSocket download wait for an expose it has not heard of before
RouterLab reports the hang (Burn would wait forever); an expose that failed is reported at once."""
CONNECT_TIMEOUT_S = 5.0


def wait_bound(transport: Transport) -> float:
    """How long a source waits for its expose before it answers a download."""
    return IROH_WAIT_S if transport is Transport.IROH else HANG_BOUND_S


@dataclass(frozen=True)
class Outcome:
    """What a download brought: the bytes, or why none came (`NEVER` / `TIMED_OUT`)."""

    kind: str
    data: TensorData | None = None
    reason: str = ""
    address: str = ""
    gone: str = ""
    """Set when the source went away: `unreachable` (no `/data` connection could be opened) or
    `closed` (the open connection broke). Over WebSocket Burn tells the two apart by where it
    fails: it panics when it cannot open the data channel (`get_data_stream`,
    external_comm.rs:187-192) and `download_tensor` returns None when an open one breaks
    (external_comm.rs:160-174). Over Iroh both return None: a stream that cannot be opened is
    logged (`IROH_OPEN`), and so is one that breaks (iroh/transfer.rs:200-210). "gone" is
    RouterLab's word for both; Burn has no such name."""


class Source:
    """Where a transfer's bytes come from, and over which transport."""

    transport: Transport = Transport.IROH

    def fetch(self, transfer_id: int) -> Outcome:
        raise NotImplementedError


class DataLinks:
    """One `/data` connection per source server, opened on first use (`get_data_stream`,
    external_comm.rs:177-201). Used only by the thread that runs the sessions."""

    def __init__(self) -> None:
        self._links: dict[str, DataSocket] = {}
        self.received: dict[str, int] = {}
        """Bytes downloaded from each source server (what crossed the `/data` sockets)."""
        self._ids = itertools.count(1)

    def download(self, address: str, client: int, transfer_id: int, transport: Transport,
                 adopt: bool = False) -> Outcome:
        """Ask `address` for transfer `transfer_id` of client `client`; bounded in time. With
        `adopt`, quantized bytes are `ReceivedData`: the buffer `DataSocket` read them into is the
        arrival's own (its one copy, made by the socket as the bytes came)."""
        from websockets.exceptions import WebSocketException  # on first use: see the package

        request_id = next(self._ids)
        try:
            link = self._link(address)
            for frame in P.pack([{"k": P.DOWNLOAD, "id": request_id, "client": client,
                                  "transfer": transfer_id, "transport": transport.value}]):
                link.send(frame)
            deadline = time.monotonic() + wait_bound(transport) + CONNECT_TIMEOUT_S
            while True:  # bounded: each recv waits at most until the deadline
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no answer")
                (answer,) = P.receive(lambda: self._counted(address, link.recv(
                    max(deadline - time.monotonic(), 0.001))))
                if answer.get("id") == request_id:
                    break
        except (OSError, TimeoutError, WebSocketException, CodecError, ValueError) as error:
            broken = self._links.pop(address, None)
            if broken is not None:
                broken.close()
            gone = "closed" if broken is not None else "unreachable"
            reason = (f"the source peer at {address} refused this peer's token: peers that move "
                      f"tensors between them share one ({TOKEN_ENV} when each is started)"
                      if isinstance(error, Refused) and "token" in str(error) else
                      f"the source peer at {address} did not answer "
                      f"({type(error).__name__}: {error})")
            return Outcome(P.NEVER, reason=reason,
                           gone="" if isinstance(error, TimeoutError | CodecError) else gone,
                           address=address)
        if answer["k"] == P.TENSOR:
            data = decode_data(answer["data"])
            if adopt and isinstance(data.dtype, QFloat):
                data = ReceivedData(data.bytes, data.shape, data.dtype)
            return Outcome(P.TENSOR, data)
        return Outcome(answer["k"] if answer["k"] in (P.NEVER, P.TIMED_OUT) else P.NEVER,
                       reason=str(answer.get("reason", answer.get("message", ""))))

    def _counted(self, address: str, frame: memoryview) -> memoryview:
        self.received[address] = self.received.get(address, 0) + len(frame)
        return frame

    def _link(self, address: str) -> DataSocket:
        link = self._links.get(address)
        if link is not None and not link.reusable():
            link.close()  # closed since its last download (the source restarted): open anew
            link = None
        if link is None:
            link = self._links[address] = DataSocket(address, CONNECT_TIMEOUT_S)
        return link

    def close(self) -> None:
        for link in self._links.values():
            link.close()
        self._links.clear()


class PeerSource(Source):
    """Another server's `/data` route (Burn's direction: the target downloads)."""

    def __init__(self, links: DataLinks, address: str, client: int, transport: Transport,
                 adopt: bool = False) -> None:
        self.links, self.address, self.client, self.transport = links, address, client, transport
        self.adopt = adopt
        """Whether the arrival keeps the buffer the bytes were received into
        (`DataLinks.download`)."""

    def fetch(self, transfer_id: int) -> Outcome:
        return self.links.download(self.address, self.client, transfer_id, self.transport,
                                   self.adopt)


class PushedSource(Source):
    """Bytes the client's in-process peer pushes (it has no `/data` route of its own): the
    target waits for them as it would for a download, within the same bound."""

    def __init__(self, transport: Transport = Transport.IROH) -> None:
        self.transport = transport
        """Set by the task that expects the bytes (they may arrive first)."""
        self._arrived = threading.Condition()
        self._outcome: Outcome | None = None

    def deliver(self, outcome: Outcome) -> None:
        with self._arrived:
            self._outcome = outcome
            self._arrived.notify_all()

    def fetch(self, transfer_id: int) -> Outcome:
        with self._arrived:
            self._arrived.wait_for(lambda: self._outcome is not None,
                                   timeout=wait_bound(self.transport))
            outcome = self._outcome
        if outcome is None:
            return Outcome(P.TIMED_OUT if self.transport is Transport.IROH else P.NEVER,
                           reason="the in-process peer never pushed it")
        if outcome.kind == P.NEVER and self.transport is Transport.IROH:
            time.sleep(IROH_WAIT_S)  # Iroh's source answers only when its wait runs out
            return Outcome(P.TIMED_OUT, reason=outcome.reason)
        return outcome


class NetworkServer(Server):
    """`Server` whose bytes-path transfers may come from another process (see the module)."""

    def __init__(self, trace: Trace, journal: Journal) -> None:
        super().__init__(trace, journal)
        self.sources: dict[int, Source] = {}
        self.failed: dict[int, Outcome] = {}
        self.links = DataLinks()
        self.legacy = False
        """Replay Burn when a source goes away (set by the owner from its policy)."""
        self.on_fetch: Callable[[str], None] = lambda point: None
        """Called before this peer downloads a transfer (where a `kill during` fault strikes a
        target, `routerlab.core.serving.faults`)."""

    def expect(self, transfer_id: int, source: Source) -> None:
        """The target of `transfer_id` will download it from `source` (journaled)."""
        self.journal.set(self.sources, transfer_id, source)

    def published(self, transfer_id: int) -> bool:
        """Local publications as in the model; a transfer from another process is fetched once
        (blocking this scheduler, as `download_tensor` blocks the session's worker)."""
        if transfer_id in self._published:
            return True
        source = self.sources.get(transfer_id)
        if source is None or transfer_id in self.failed:
            return False
        self.on_fetch("transfer")
        outcome = source.fetch(transfer_id)
        if outcome.data is None:
            self.journal.set(self.failed, transfer_id, outcome)
            if outcome.gone == "unreachable" and self.legacy and \
                    source.transport is Transport.WEBSOCKET:  # Iroh logs it: `gives_up`
                raise BurnPanic(f"Failed to open remote 'data' channel to {outcome.address}: "
                                f"{outcome.reason}. Is a `burn-remote` server running at that "
                                "address?", DATA_CHANNEL)
            return False
        self.journal.set(self._published, transfer_id, (None, outcome.data))
        return True

    def publication(self, transfer_id: int) -> TensorData | None:
        """What this peer published under `transfer_id` (read by the `/data` route's thread)."""
        entry = self._published.get(transfer_id)
        return None if entry is None else entry[1]  # type: ignore[no-any-return]

    def forget_published(self, transfer_ids: set[int]) -> None:
        """Drop publications that were downloaded, once the step that made them is kept (Burn
        drops one after its last download, external_comm.rs:212-220)."""
        for transfer_id in transfer_ids:
            self._published.pop(transfer_id, None)

    def gives_up(self, op: RegisterRemoteOp) -> bool:
        """A download whose open connection broke returns None whatever the transport
        (`download_tensor`, external_comm.rs:160-174): the session goes on without the tensor.
        Over Iroh every failed download does (the base's rule), one that could not open a
        stream to its source included (`IROH_OPEN`)."""
        failed = self.failed.get(op.transfer_id)
        return super().gives_up(op) or (failed is not None and failed.gone == "closed")

    def waited_out(self, transfer_id: int) -> str:
        failed = self.failed.get(transfer_id)
        if failed is not None and failed.gone == "unreachable":
            return (f"when it could not reach its source ({failed.reason}; over Iroh "
                    f"download_tensor logs the error and returns None, {IROH_OPEN})")
        if failed is not None and failed.gone == "closed":
            return f"when its source went away ({failed.reason}; download_tensor returned None)"
        if failed is None:
            return super().waited_out(transfer_id)
        return (f"after {IROH_WAIT_S:g} s over Iroh (Burn waits {IROH_TIMEOUT_S:g} s; served peers "
                f"scale it down {IROH_SCALE}x for teaching)")

    def never_exposed(self, transfer_id: int | None) -> str:
        failed = self.failed.get(transfer_id) if transfer_id is not None else None
        if failed is None:
            return super().never_exposed(transfer_id)
        return failed.reason

    def close(self) -> None:
        super().close()
        self.links.close()


def answer_download(data: TensorData | Readback | None, dead: dict[int, str], transfer_id: int,
                    transport: Transport, waited: float) -> tuple[str, Any] | None:
    """The source's answer to a download once `waited` seconds have passed, or None to keep
    waiting: the bytes when published; over WebSocket, `Never` as soon as the expose is known
    to have failed; otherwise `Never` / `TimedOut` when the transport's bound runs out."""
    if data is not None:
        return P.TENSOR, data
    if transfer_id in dead and transport is Transport.WEBSOCKET:
        return P.NEVER, dead[transfer_id]
    if waited < wait_bound(transport):
        return None
    reason = dead.get(transfer_id, "nothing will ever expose it")
    if transport is Transport.IROH:
        return P.TIMED_OUT, f"Timed out waiting for tensor transfer {transfer_id} ({reason})"
    return P.NEVER, f"{reason}: RouterLab stopped waiting after {HANG_BOUND_S:g} s"
