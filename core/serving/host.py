"""`PeerHost`: one served peer: a process, one backend profile, its devices, and a WebSocket
server that feeds every client's sessions (burn-remote's server, `crates/burn-remote/src/server/`).

Each client that connects gets its own half of a deployment, as each burn-remote session gets its
own interpreter and handle container (`crates/burn-remote/src/server/session.rs:26-38`): a
`Runtime` whose sessions, interpreters, registries, rendezvous and scheduler are the in-process
model's own (`ServedClient`), with a `NetworkServer` so that a bytes-path target can download
from another process. Tasks are queued in arrival order; `Sync` runs the sessions on a worker
thread (Burn gives each session an OS thread, `server/worker.rs:19-33`), and the client then
commits or rolls back the step on every peer it touched, so a failed step leaves every registry
as it was, across processes too.

Every loop is bounded: a connection's loop ends with the connection, the work queue is bounded
(backpressure, as `TASK_CHANNEL_CAPACITY`, `server/worker.rs:54-60`), a download waits at most
its transport's bound (`transfers.wait_bound`), and every read and write of the wire has a
deadline (`wire`, `pace`).

Safe to leave running (docs/remote.md, "Security"): every upgrade passes the `Gate` (a token, an
allowed Origin, a bounded number of connections); every message is checked against the protocol's
schema in the reader (`remote.schema`) and every op against the limits before it is queued
(`admit`); one that is not of the protocol gets one protocol error line and its connection is
closed, and that client's sessions and tensors are freed, while every other client goes on. (Burn
drops a connection whose batch it cannot decode and leaves its session behind,
`crates/burn-remote/src/server/pump.rs:95-96`; freeing it is RouterLab's choice.) A peer
downloads only from the peers it was told at start (`admit.AllowList`), and each client runs on
its own thread (`worker.Worker`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..base.devices import LOCAL_PEER, Device, check_topology, parse_device
from ..base.dtypes import QFloat
from ..base.errors import DeviceError, LimitError, MessageLost, RouterLabError, TransferRejected
from ..base.gpu import require_cupy
from ..base.limits import human_bytes
from ..base.policies import Policy
from ..base.request import DEFAULT_TRANSPORT, Transport
from ..remote import protocol as P
from ..remote import schema
from ..remote.auth import new_token
from ..remote.codec import CodecError, encode_data, encode_error
from ..remote.readback import Readback, ServedTransfers
from ..remote.transfers import (
    NetworkServer,
    Outcome,
    PeerSource,
    PushedSource,
    answer_download,
)
from ..router.custom_examples import EXAMPLES, example_registry
from ..router.ir import ExposeOp, ExposeRemoteOp, OperationIr, ReadOp, RegisterRemoteOp
from ..router.session import Reply, Session
from ..runtime import Runtime
from .admit import CLIENT_SHARE_BYTES, MAX_CLIENT_SHARE_BYTES, AllowList, Share, admit
from .faults import (
    DELAYABLE,
    FaultKind,
    LimitedBackend,
    PeerFaults,
    limited_backend,
    registry_bytes,
)
from .frames import decoded, enqueue, receive, send_within
from .gate import Gate
from .throttle import Throttle, library_logger
from .worker import Worker

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

QUEUE_BOUND = 4096
"""Messages a connection may have waiting for its worker before the reader stops reading."""
POLL_S = (0.0001, 0.001)
"""A download polls its source's publications from the first delay up to the second."""
OPEN_TIMEOUT_S = 5.0
"""The longest an upgrade may take, from the connection to the handshake's end."""
PING_S = 20.0
"""A `/session` client that does not answer a ping within this is gone (websockets' keepalive);
an idle client that answers stays, as a notebook's does between cells."""
DATA_IDLE_S = 60.0
"""A `/data` connection that asks nothing for this long is closed (its peer reopens one)."""
CLOSE_TIMEOUT_S = 1.0
"""The longest a closing handshake may take (a client that does not answer is cut)."""
STOP_WAIT_S = 0.5
"""How long a stopping peer waits for its connections' handlers to end (none waits for a step
in progress: the process ends with them)."""
NOT_ALLOWED = ("RegisterTensorRemote: its source is not one of the peers this peer may download "
               "from (routerlab serve --peer-allow, or the peers started with it); no connection "
               "was made")


class ServedClient:
    """One client's sessions on this peer, and the step they are in (see the module)."""

    def __init__(self, host: PeerHost, key: int, peer: str, policy: Policy,
                 cubecl_legacy: bool) -> None:
        self.key, self.peer, self.hosted = key, peer, host.devices
        self.allowed = host.allowed
        self.share = Share(host.client_memory, self.held)
        self.worker = Worker(f"routerlab-client-{key:x}")
        """This client's own thread: its steps run there (`worker`)."""
        self.quantized = ServedTransfers(asyncio.get_running_loop())
        self.rt = Runtime(policy=policy, cubecl_legacy=cubecl_legacy, server=NetworkServer,
                          backends=self._backend, quantized=self.quantized,
                          custom_ops=example_registry(EXAMPLES))  # the builder's handlers
        self.server: NetworkServer = self.rt.server  # type: ignore[assignment]
        self.server.on_fetch = host.faults.reached
        self.server.legacy = self.rt.legacy
        self.received = 0
        """Tasks received in this step (the client's `Sync` says how many it sent)."""
        self.reads: list[tuple[Any, Reply]] = []
        self.exposing: dict[int, tuple[Session, ExposeRemoteOp]] = {}
        """Transfers this peer's sessions were asked to expose in this step, and each expose."""
        self.dead: dict[int, str] = {}
        """Transfers whose expose failed in this step, and why (a download is told at once)."""
        self.downloaded: set[int] = set()
        self.pushed: dict[int, PushedSource] = {}
        self.refused: BaseException | None = None
        """The first fire-and-forget task of this step that could not be queued."""
        self._mark = 0

    def session(self, device: str) -> Session:
        """The session of a device this peer hosts, made on first use (Burn's session `Init`)."""
        parsed = parse_device(device)
        bare = Device(parsed.kind, parsed.index, LOCAL_PEER, parsed.profile)
        if parsed.peer != self.peer or bare not in self.hosted:
            raise DeviceError(f"{parsed} is not served here: this peer ({self.peer}) serves "
                              f"{', '.join(map(str, self.hosted))}")
        self.rt.client(parsed)  # made on first use; a host's sessions are all in-process
        return self.rt.server.sessions[parsed]

    def _backend(self, device: Device) -> LimitedBackend:
        backend = limited_backend(device)
        assert isinstance(backend, LimitedBackend)
        backend.share = self.share
        return backend

    def held(self) -> int:
        """Bytes this client's registries hold on this peer, over all its devices."""
        return sum(registry_bytes(s.handles)
                   for s in list(self.server.sessions.values()))

    def _begin(self) -> None:
        if not self.rt.journal.active:
            self.rt.trace.begin_step()
            self._mark = len(self.rt.trace)
            self.rt.journal.begin()

    def task(self, message: dict[str, Any]) -> None:
        """Queue one task on its device's FIFO (fire-and-forget: a refusal waits for `Sync`).
        Its op was decoded by the reader (`decoded`); one the limits refuse is refused here,
        before anything is allocated (`admit`)."""
        self._begin()
        self.received += 1
        op: OperationIr = message["op"]
        try:
            session = self.session(message["device"])
            admit(op, self.share)
            self._route(session, op, message)
        except CodecError:
            raise
        except RouterLabError as error:
            self.refused = self.refused or error

    def _route(self, session: Session, op: OperationIr, message: dict[str, Any]) -> None:
        reply = None
        if isinstance(op, ExposeOp):  # whose session a waiting target waits for (`_hang`)
            self.server.transfers[op.transfer_id] = (session.device, session.device)
        if isinstance(op, ReadOp):
            reply = Reply()
            self.reads.append((message.get("id"), reply))
        elif isinstance(op, ExposeRemoteOp):
            self.exposing[op.transfer_id] = (session, op)
        elif isinstance(op, RegisterRemoteOp):
            transport = (op.request.transport if op.request else None) or DEFAULT_TRANSPORT
            source = message.get("source") or {}
            if source.get("push"):
                pushed = self.pushed.setdefault(op.transfer_id, PushedSource())
                pushed.transport = transport
                self.server.expect(op.transfer_id, pushed)
            elif not self.allowed.permits(source["address"]):
                raise TransferRejected(NOT_ALLOWED)
            else:
                interp = session.interpreter  # a native host arrival keeps the buffer received
                adopt = isinstance(op.out.dtype, QFloat) and interp.backend.xp is np and \
                    interp.policy_for(op.request) is Policy.NATIVE
                self.server.expect(op.transfer_id, PeerSource(
                    self.server.links, str(source["address"]), int(source["client"]), transport,
                    adopt))
        session.submit(op, reply)

    def sync(self, first: str | None, sent: int | None = None
             ) -> tuple[BaseException | None, list[tuple[Any, Any]]]:
        """Run every session until its queue is empty (a worker thread); report, keep state.
        Under the fix a step that lost a task on the way is refused before it runs (`sent`, the
        client's count); `legacy` runs what arrived, as Burn does."""
        self._begin()
        error = self.refused
        if error is None and sent is not None and sent != self.received and not self.rt.legacy:
            error = MessageLost(f"peer {self.peer} received {self.received} of the {sent} tasks "
                                "sent in this step (the others were lost on the way); the step "
                                "is undone on every peer")
            self.server.clear_queues()
        if error is None:
            try:
                self.server.run(None if first is None else self.session(first))
            except Exception as failure:  # noqa: BLE001 - any failure is the step's, reported
                error = failure
        for transfer_id, (session, _) in self.exposing.items():
            if self.server.publication(transfer_id) is None and transfer_id not in self.downloaded:
                self.dead[transfer_id] = (f"its source {session.label} ended" if session.ended
                                          else "nothing will ever expose it")
        reads = [] if error is not None else [(rid, reply.value) for rid, reply in self.reads]
        self.reads.clear()
        return error, reads

    def readback(self, transfer_id: int) -> Readback | None:
        """The readback in progress that will publish `transfer_id`, once its expose has begun
        (a readback of the tensor before, for another task, is not taken for it)."""
        exposing = self.exposing.get(transfer_id)
        if exposing is None:
            return None
        session, op = exposing
        if any(queued is op for queued, _ in list(session.queue)):  # list(): one step, GIL held
            return None
        return self.quantized.stream(session.device, int(op.tensor.id))

    def limit(self, device: str, limit: int) -> None:
        """An `oom` fault: `device`'s allocations fail past `limit` bytes held."""
        session = self.session(device)
        backend = session.interpreter.backend
        assert isinstance(backend, LimitedBackend)
        backend.limit, backend.legacy = limit, self.rt.legacy
        backend.live = lambda: registry_bytes(session.handles)

    def kept(self) -> dict[str, Any]:
        """Every session's registry rows (what the client names if this peer dies)."""
        return {s.label: s.handles.view().rows
                for s in self.server.sessions.values()}

    def commit(self) -> list[list[Any]]:
        """Keep the step; return its trace events for the client's trace."""
        if not self.rt.journal.active:
            return []
        self.rt.journal.commit()
        self.server.forget_published(self.downloaded)
        events = [list(e[1:]) for e in self.rt.trace.read(self._mark)]
        self._end_step()
        return events

    def rollback(self) -> None:
        """Undo the step exactly as `Runtime.atomic` does in-process."""
        if self.rt.journal.active:
            self.rt.journal.rollback()
            self.server.clear_queues()
            for session in self.server.sessions.values():
                session.free_unwound()
            self.rt.trace.truncate(self._mark)
        self._end_step()

    def _end_step(self) -> None:
        self.reads.clear()
        self.exposing.clear()
        self.dead.clear()
        self.downloaded.clear()
        self.pushed.clear()
        self.server.sources.clear()
        self.server.failed.clear()
        self.server.transfers.clear()
        self.refused = None
        self.received = 0

    def notes(self) -> list[str]:
        """This step's give-ups (Iroh timeouts): a step that fails elsewhere reports them."""
        return [e.detail for e in self.rt.trace.read(self._mark) if e.kind == "timeout"]

    def states(self) -> dict[str, list[Any]]:
        return {s.label: [s.ended, s.panicked] for s in self.server.sessions.values()}

    def close(self) -> None:
        """The client went away: its sessions end and their handles are freed
        (`server/worker.rs:149-181`)."""
        self.rollback()
        for session in self.server.sessions.values():
            session.handles.clear()
            session.end("closed: the client went away")
        self.server.close()
        self.quantized.streams.clear()


class PeerHost:
    """The served peer: devices of one backend, and its clients (see the module)."""

    def __init__(self, devices: list[Device], host: str = "127.0.0.1", port: int = 0,
                 faults: bool = False, *, token: str | None = None, origins: Iterable[str] = (),
                 allow: Iterable[str] = (), client_memory: int = CLIENT_SHARE_BYTES,
                 say: Callable[[str], None] | None = None) -> None:
        check_serving(devices, host, client_memory)
        bare = [Device(d.kind, d.index, LOCAL_PEER, d.profile) for d in devices]
        check_topology(bare)  # one backend per server (builder.rs:77-89)
        self.devices = list(dict.fromkeys(bare))
        self.host, self.port = host, port
        self.clients: dict[int, ServedClient] = {}
        self.faults = PeerFaults(faults)
        self.instance = secrets.token_hex(4)
        """Which run of this peer a client talks to (a restart makes a new one)."""
        self.connections: set[ServerConnection] = set()
        self.served: dict[int, int] = {}
        """Bytes this peer sent on `/data`, by the client whose transfer they carried."""
        self.token = token or new_token()
        self.say = Throttle(say or _stderr)
        """Where the peer's side of a refusal or a protocol error is written (one line, a few
        a window: a client can make them as fast as it can open sockets)."""
        self.gate = Gate(self.token, origins, self.say, self._open_count,
                         self.connections.add)
        self.allowed = AllowList(allow)
        """The peers this peer may download from (`--peer-allow`, the peers started with it)."""
        self.client_memory = client_memory
        self.stopping = False
        """Set once the peer stops: a client's close no longer waits for its thread."""

    @property
    def address(self) -> str:
        return f"ws://{self.host}:{self.port}"

    def describe(self) -> str:
        first = self.devices[0]
        names = ", ".join(f"{d.kind}:{d.index}" for d in self.devices)
        return f"{self.address} ({names} @{first.profile})"

    def _open_count(self, route: str) -> int:
        """Connections of `route` let in and not yet closed (counted from the upgrade on, so a
        burst of upgrades cannot pass the bound together)."""
        from websockets.protocol import State

        self.connections -= {c for c in list(self.connections)
                             if c.protocol.state is State.CLOSED}  # a failed handshake's too
        return sum(1 for c in self.connections
                   if c.request is not None and c.request.path == route)

    async def run(self, stop: asyncio.Event, ready: Callable[[PeerHost], None],
                  sock: Any = None) -> None:
        """Serve until `stop` is set; `ready` is called once the port is bound (`sock`: a
        listening socket handed over by `LocalPeers`, else `host:port` is bound here). Stopping
        cuts every connection, waits at most `STOP_WAIT_S` for their handlers, and never for a
        step in progress (each client's thread is a daemon)."""
        from websockets.asyncio.server import serve  # on first use: see the package's __init__

        from .pace import PacedConnection

        where: dict[str, Any] = {"sock": sock} if sock is not None else {
            "host": self.host, "port": self.port}
        server = await serve(self._route, **where, max_size=P.MAX_FRAME_BYTES,
                             compression=None, process_request=self.gate,
                             open_timeout=OPEN_TIMEOUT_S, ping_interval=PING_S,
                             ping_timeout=PING_S, close_timeout=CLOSE_TIMEOUT_S,
                             server_header="routerlab", create_connection=PacedConnection,
                             logger=library_logger(self.say))
        try:
            self.port = next(iter(server.sockets)).getsockname()[1]
            ready(self)
            await stop.wait()
        finally:
            self.stopping = True
            server.close(close_connections=False)
            for connection in list(self.connections):
                connection.transport.abort()  # no closing handshake: stop now, under any load
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(server.wait_closed(), STOP_WAIT_S)
            for client in list(self.clients.values()):
                client.worker.stop()
            self.clients.clear()

    async def _route(self, connection: ServerConnection) -> None:
        from websockets.exceptions import ConnectionClosed

        path = connection.request.path if connection.request else ""
        self.connections.add(connection)
        try:
            with contextlib.suppress(ConnectionClosed):
                if path == "/session":
                    await self._session(connection)
                else:  # the gate lets only /session and /data through
                    await self._data(connection)
        finally:
            self.connections.discard(connection)

    async def _protocol_error(self, connection: ServerConnection, request_id: Any,
                              error: BaseException, client: ServedClient | None) -> None:
        """A message that is not of the protocol: one error line back, one on this side, and
        the connection closed (1002); the client's sessions are freed by `_session`."""
        from websockets.exceptions import ConnectionClosed

        line = str(error) if isinstance(error, CodecError) else \
            f"internal error: {type(error).__name__}"
        who = f"client {client.key:x}" if client is not None else "a client"
        self.say(f"protocol error from {who} on {_remote(connection)}: {line}; connection "
                 "closed")
        with contextlib.suppress(ConnectionClosed, CodecError, TimeoutError):
            await send_within(connection, [P.error(request_id, f"protocol error: {line}")])
        with contextlib.suppress(ConnectionClosed):
            await connection.close(1002, "protocol error")

    # --- /session ------------------------------------------------------------------------------

    async def _session(self, connection: ServerConnection) -> None:
        from .pace import watch

        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(QUEUE_BOUND)
        state: dict[str, ServedClient] = {}
        worker = asyncio.create_task(self._work(connection, queue, state))

        async def cut() -> None:
            self.say(f"a client on {_remote(connection)} sent a message too slowly "
                     "(docs/limits.md); connection closed")
            await connection.close(1008, "a message sent too slowly")

        pacer = asyncio.create_task(watch(connection, cut))
        try:
            async for frame in connection:
                try:
                    messages = [decoded(m) for m in await receive(connection, frame)]
                except CodecError as error:
                    await self._protocol_error(connection, None, error, state.get("client"))
                    return
                for message in messages:
                    if message["k"] in DELAYABLE:  # a fault may drop or hold it back
                        hold = self.faults.intercept(message["k"])
                        if hold is None:
                            continue
                        if hold:
                            await asyncio.sleep(hold)
                    if message["k"] == P.PUBLISH and "client" in state:
                        self._publish(state["client"], message)
                    elif not await enqueue(queue, message, worker):
                        return  # the worker closed the connection (a Close, a protocol error)
        finally:
            pacer.cancel()
            worker.cancel()  # a step in progress ends on the client's thread, then the close
            await asyncio.gather(worker, return_exceptions=True)
            client = state.get("client")
            if client is not None:
                self.clients.pop(client.key, None)
                if not self.stopping:
                    with contextlib.suppress(Exception):  # freeing never stops the peer
                        await client.worker.call(client.close)
                client.worker.stop()

    async def _work(self, connection: ServerConnection, queue: asyncio.Queue[Any],
                    state: dict[str, ServedClient]) -> None:
        """Handle one connection's messages in order: a failure of the model answers and goes
        on; a message outside the protocol (or a failure of RouterLab's own) closes it."""
        while (message := await queue.get()) is not None:
            try:
                replies = await self._handle(message, state)
                if replies is None:  # Close: the client's session ends here
                    await connection.close(1000, "closed by the client")
                    return
            except CodecError as error:
                await self._protocol_error(connection, message.get("id"), error,
                                           state.get("client"))
                return
            except RouterLabError as error:
                replies = [P.error(message.get("id"), f"{message['k']}: {error}")]
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - never a silent death: said, then closed
                await self._protocol_error(connection, message.get("id"), error,
                                           state.get("client"))
                return
            if replies:
                try:
                    await send_within(connection, replies)
                except LimitError as error:  # an answer over the frame limit is not sent
                    await send_within(connection, [P.error(message.get("id"),
                                                            f"{message['k']}: {error}")])
                except TimeoutError:
                    self.say(f"a client on {_remote(connection)} did not read its answers; "
                             "connection cut")
                    return
            if message["k"] == P.FAULT:
                await self._faulted()
            elif message["k"] == P.COMMIT:
                self.faults.reached("commit")  # a kill after the transfer: once it is kept

    async def _handle(self, message: dict[str, Any],
                      state: dict[str, ServedClient]) -> list[dict[str, Any]] | None:
        kind, request_id = message["k"], message.get("id")
        if kind == P.INIT:
            return [self._init(message, state)]
        client = state.get("client")
        if client is None:
            raise CodecError(f"{kind} before {P.INIT}")
        if kind in P.TASKS:
            client.task(message)
            return []
        if kind == P.OPEN:
            session = client.session(message["device"])
            return [{"k": P.OPEN, "id": request_id, "device": session.label}]
        if kind == P.SYNC:
            error, reads = await client.worker.call(client.sync, message.get("first"),
                                                    message.get("sent"))
            out: list[dict[str, Any]] = [{"k": P.READ_TENSOR, "id": rid, "data": encode_data(d)}
                                         for rid, d in reads]
            out.append({"k": P.SYNC, "id": request_id, "sessions": client.states(),
                        "error": None if error is None else encode_error(error),
                        "notes": client.notes()})
            return out
        if kind == P.COMMIT:
            events = client.commit()
            return [{"k": P.COMMIT, "id": request_id, "events": events,
                     "sessions": client.states(), "kept": client.kept()}]
        if kind == P.ROLLBACK:
            await client.worker.call(client.rollback)
            return [{"k": P.ROLLBACK, "id": request_id, "sessions": client.states()}]
        if kind == P.REGISTRY:
            view = client.session(message["device"]).view()
            return [{"k": P.REGISTRY, "id": request_id, **view.to_dict()}]
        if kind == P.STATS:
            counters: dict[str, Any] = {"served": self.served.get(client.key, 0),
                                        "downloaded": dict(client.server.links.received)}
            if "device" in message:
                copied, copies = client.session(message["device"]).counters()
                counters.update(bytes_copied=copied, copies=copies)
            return [{"k": P.STATS, "id": request_id, **counters}]
        if kind == P.PUBLISH:
            self._publish(client, message)
            return []
        if kind == P.FAULT:
            fault = message["fault"]
            armed = self.faults.arm(fault)
            if FaultKind.parse(fault["kind"]) is FaultKind.OOM:
                client.limit(str(fault["device"]), int(fault["limit"]))
            return [{"k": P.FAULT, "id": request_id, "armed": armed}]
        if kind == P.CLOSE:
            return None
        raise CodecError(f"unknown message kind {kind!r} on /session")

    def _init(self, message: dict[str, Any], state: dict[str, ServedClient]) -> dict[str, Any]:
        if message["version"] != P.VERSION:
            raise CodecError(f"protocol version {message['version']!r}; this peer speaks "
                             f"{P.VERSION}")
        if "client" in state:
            raise CodecError("a session stream cannot be initialized twice (pump.rs:118-120)")
        key, peer = message["client"], message["peer"]
        if key in self.clients:
            raise CodecError(f"client {key} is already connected")
        client = ServedClient(self, key, peer, Policy.parse(message.get("policy") or "native"),
                              bool(message.get("cubecl_legacy", False)))
        state["client"] = self.clients[key] = client
        return {"k": P.INIT, "id": message.get("id"), "version": P.VERSION,
                "devices": [str(d) for d in self.devices], "pid": os.getpid(),
                "instance": self.instance}

    async def _faulted(self) -> None:
        """After answering a `Fault`: die at once (a kill before) or restart if it says so."""
        self.faults.reached("now")
        if self.faults.restart:
            await self.restart()

    async def restart(self) -> None:
        """Come back empty on the same address, as a restarted `routerlab serve` would: every
        connection is closed (1012, service restart), every client's sessions end with it, and
        a new instance answers the next `Init`."""
        self.faults = PeerFaults(self.faults.allowed)
        self.instance = secrets.token_hex(4)
        closing = asyncio.gather(*(c.close(1012, "the peer restarted")
                                   for c in list(self.connections)), return_exceptions=True)
        await asyncio.shield(closing)  # the closing of its own connection cancels this task

    def _publish(self, client: ServedClient, message: dict[str, Any]) -> None:
        """Bytes pushed by the client's in-process peer (`PushedSource`)."""
        transfer_id = message["transfer"]
        pushed = client.pushed.setdefault(transfer_id, PushedSource())
        if message.get("data") is None:
            pushed.deliver(Outcome(P.NEVER, reason=str(message.get("reason") or "")))
        else:  # decoded by the reader (`decoded`)
            pushed.deliver(Outcome(P.TENSOR, message["data"]))

    # --- /data ---------------------------------------------------------------------------------

    async def _data(self, connection: ServerConnection) -> None:
        """Answer downloads of this peer's publications (`handle_data_channel`,
        external_comm.rs:229-259), each within its transport's bound. A message outside the
        protocol closes the connection; one idle for `DATA_IDLE_S` is closed too."""
        if connection.keepalive_task is not None:  # no ping may land inside a frame that
            connection.keepalive_task.cancel()     # `wire.write_whole` writes
        while True:  # bounded: each wait for a request ends within DATA_IDLE_S
            try:
                frame = await asyncio.wait_for(connection.recv(), DATA_IDLE_S)
            except TimeoutError:
                await connection.close(1000, "idle")
                return
            try:
                messages = await receive(connection, frame)
                for message in messages:
                    schema.check(message, "/data")
            except CodecError as error:
                await self._protocol_error(connection, None, error, None)
                return
            replies = [await self._download(m) for m in messages]
            try:
                sent = await send_within(connection, replies, whole=True)
            except LimitError as error:
                sent = await send_within(connection, [{"k": P.NEVER, "id": m.get("id"),
                                                        "reason": str(error)} for m in messages])
            for message in messages[:1]:
                key = message["client"]
                self.served[key] = self.served.get(key, 0) + sent

    async def _download(self, message: dict[str, Any]) -> dict[str, Any]:
        transfer_id, transport = message["transfer"], Transport.parse(message["transport"])
        self.faults.reached("transfer")  # a kill during the transfer: the source dies here
        hold = self.faults.intercept(P.DOWNLOAD)
        if hold:
            await asyncio.sleep(hold)
        loop = asyncio.get_running_loop()
        start, delay = loop.time(), POLL_S[0]
        while True:  # bounded by the transport's wait (answer_download)
            client = self.clients.get(message["client"])
            data = None if client is None else (client.server.publication(transfer_id)
                                                or client.readback(transfer_id))
            dead = {} if client is None else client.dead
            answer = answer_download(data, dead, transfer_id, transport, loop.time() - start)
            if answer is not None:
                break
            await asyncio.sleep(delay)
            delay = min(delay * 2, POLL_S[1])
        kind, value = answer
        if kind == P.TENSOR and client is not None:
            client.downloaded.add(transfer_id)
            return {"k": kind, "id": message.get("id"), "data": encode_data(value)}
        return {"k": kind, "id": message.get("id"), "reason": value}


def check_serving(devices: list[Device], host: str, client_memory: int) -> None:
    """Refuse, before anything listens, a peer that could not serve what it says: no device, a
    device of another peer (`peer2/cpu:0`: a peer serves its own), a `cuda:N` without a usable
    GPU (said now, not at a client's first op), an empty host (every interface), a share of
    memory past `MAX_CLIENT_SHARE_BYTES`."""
    if not devices:
        raise DeviceError("a served peer hosts at least one device")
    for device in devices:
        if device.peer != LOCAL_PEER:
            raise DeviceError(f"{device}: a served device names no peer (the peer serving it "
                              f"is this one); serve {device.kind}:{device.index} on "
                              f"{device.peer} itself")
        if device.kind == "cuda":
            require_cupy(device.index)
    if not host.strip():
        raise RouterLabError("an empty host would listen on every interface: give one address "
                             "(127.0.0.1, or 0.0.0.0 for every interface on purpose)")
    if not 1 <= client_memory <= MAX_CLIENT_SHARE_BYTES:
        raise LimitError(f"a client's share of memory is 1 byte to "
                         f"{human_bytes(MAX_CLIENT_SHARE_BYTES)}; got {client_memory:,} bytes")


def _remote(connection: ServerConnection) -> str:
    where = connection.remote_address
    return f"{where[0]}:{where[1]}" if where else "a connection"


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


