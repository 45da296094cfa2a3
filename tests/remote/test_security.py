"""A served peer is safe to leave running: one test per attack, each on 127.0.0.1 only.

The token and the Origin check at the upgrade, no download from a peer not on the allow-list
(a listener on another loopback port sees no connection), slow sources and slow clients that
hold only their own thread, a bad message that closes only its own connection and frees that
client's tensors (RSS and threads read from /proc), op results checked before they are
allocated, Burn's 512 MiB frame limit, and a stop within 2 s under load."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from routerlab.core import Runtime
from routerlab.core.base.data import TensorData
from routerlab.core.base.dtypes import DType
from routerlab.core.base.errors import LimitError, RouterLabError
from routerlab.core.remote import PeerError
from routerlab.core.remote import protocol as P
from routerlab.core.remote.auth import verdict
from routerlab.core.remote.codec import encode_op
from routerlab.core.router.ir import (
    MatmulOp,
    RegisterDataOp,
    RegisterRemoteOp,
    TensorId,
    TensorIr,
    TensorStatus,
)

MiB = 1 << 20


# --- a raw client -------------------------------------------------------------------------------


@contextlib.contextmanager
def raw(address: str, token: str | None, route: str = "/session",
        **options: Any) -> Iterator[ClientConnection]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with connect(f"{address}{route}", open_timeout=5, additional_headers=headers,
                 max_size=None, **options) as ws:
        yield ws


def send(ws: ClientConnection, *messages: dict[str, Any]) -> None:
    for frame in P.pack(list(messages)):
        ws.send(P.fragments(frame))


def answer(ws: ClientConnection, timeout: float = 10) -> list[dict[str, Any]]:
    return P.receive(lambda: ws.recv(timeout=timeout))


def init(ws: ClientConnection, client: int) -> None:
    send(ws, {"k": P.INIT, "id": 1, "version": P.VERSION, "client": client, "peer": "p1",
              "policy": "native"})
    assert answer(ws)[0]["k"] == P.INIT


def tir(tensor_id: int, shape: tuple[int, ...], status: str = "NotInit") -> TensorIr:
    return TensorIr(TensorId(tensor_id), shape, TensorStatus(status), DType.F32)


def register(tensor_id: int, array: np.ndarray) -> dict[str, Any]:
    data = TensorData(array.tobytes(), array.shape, DType.F32)
    op = RegisterDataOp(tir(tensor_id, array.shape), data)
    return {"k": P.REGISTER_TENSOR, "device": "p1/cpu:0", "op": encode_op(op)}


def step(ws: ClientConnection, *tasks: dict[str, Any]) -> dict[str, Any]:
    """Tasks, then `Sync`; commit when it succeeded, roll back when not; the Sync answer."""
    send(ws, *tasks, {"k": P.SYNC, "id": 2, "sent": len(tasks)})
    synced = next(m for m in answer(ws) if m["k"] == P.SYNC)
    send(ws, {"k": P.ROLLBACK if synced["error"] else P.COMMIT, "id": 3})
    answer(ws)
    return synced


def closed_with_error(ws: ClientConnection) -> str:
    """The protocol error line the peer sent before it closed this connection (1002)."""
    (error,) = answer(ws)
    assert error["k"] == P.ERROR
    with pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1002
    return str(error["message"])


def still_serves(address: str) -> None:
    with Runtime(peers={"p1": address}) as rt:
        assert rt.read(rt.tensor([1, 2], device="p1/cpu:0", dtype="i32")).tolist() == [1, 2]


def wait_until(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:  # bounded in time
        if condition():
            return True
        time.sleep(0.05)
    return condition()


# --- the token and the Origin ------------------------------------------------------------------


def test_a_missing_or_wrong_token_is_refused_at_the_upgrade_with_one_line_each_side(
        one_peer: Callable[..., Any]) -> None:
    peer = one_peer()
    for token, status in ((None, 401), ("wrong-token", 403), (peer.token + "x", 403)):
        with pytest.raises(InvalidStatus) as refused, raw(peer.address, token):
            pass
        assert refused.value.response.status_code == status
    for route in ("/session", "/data"):  # every route
        with pytest.raises(InvalidStatus, match="401"), raw(peer.address, None, route):
            pass
    with raw(peer.address, peer.token) as ws:  # the right one
        init(ws, 1)
    lines = peer.stderr().splitlines()
    assert sum("missing token" in line and "(HTTP 401)" in line for line in lines) == 3
    assert sum("wrong token (HTTP 403)" in line for line in lines) == 2
    assert peer.token not in peer.stderr()  # the peer never writes the token down


def test_a_client_without_the_token_gets_one_line_naming_where_it_comes_from(
        one_peer: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from routerlab.core.remote.auth import forget
    peer = one_peer()
    forget([peer.address])
    monkeypatch.delenv("ROUTERLAB_TOKEN", raising=False)
    with pytest.raises(PeerError, match="asks for a token and none was sent: set ROUTERLAB_TOKEN"):
        Runtime(peers={"p1": peer.address})
    monkeypatch.setenv("ROUTERLAB_TOKEN", "not-the-one")
    with pytest.raises(PeerError, match="refused the token .HTTP 403"):
        Runtime(peers={"p1": peer.address})
    monkeypatch.setenv("ROUTERLAB_TOKEN", peer.token)  # the environment's token is sent
    still_serves(peer.address)


def test_the_token_is_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    import hmac
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest
    monkeypatch.setattr(hmac, "compare_digest", lambda a, b: calls.append((a, b)) or real(a, b))
    assert verdict("Bearer secret", "secret") is None
    assert verdict("Bearer secreT", "secret") == 403
    assert verdict(None, "secret") == 401 and verdict("Basic secret", "secret") == 401
    assert calls == [(b"secret", b"secret"), (b"secreT", b"secret")]


def test_an_upgrade_with_an_origin_is_refused_unless_allowed(
        one_peer: Callable[..., Any]) -> None:
    peer = one_peer("--allow-origin=http://localhost:8888")
    with pytest.raises(InvalidStatus, match="403"), \
            raw(peer.address, peer.token, origin="http://evil.example"):
        pass  # a page the user opened, even with the token
    with raw(peer.address, peer.token, origin="http://localhost:8888") as ws:
        init(ws, 2)
    with raw(peer.address, peer.token) as ws:  # no Origin: not a browser
        init(ws, 3)
    assert "origin 'http://evil.example' is not allowed" in peer.stderr()


# --- SSRF -------------------------------------------------------------------------------------


def _download_from(ws: ClientConnection, address: str, transfer: int) -> dict[str, Any]:
    op = RegisterRemoteOp(transfer, tir(10 + transfer, (4,)))
    return step(ws, {"k": P.REGISTER_TENSOR_REMOTE, "device": "p1/cpu:0", "op": encode_op(op),
                     "source": {"address": address, "client": 1}})


def test_a_peer_downloads_only_from_its_allow_list_and_connects_nowhere_else(
        one_peer: Callable[..., Any]) -> None:
    listener = socket.create_server(("127.0.0.1", 0))  # another loopback port, listening
    closed = socket.create_server(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()  # a port nobody listens on
    peer = one_peer()
    try:
        with raw(peer.address, peer.token) as ws:
            init(ws, 4)
            texts = {_download_from(ws, f"ws://127.0.0.1:{port}", n)["error"]["message"]
                     for n, port in enumerate((listener.getsockname()[1], closed_port))}
        listener.settimeout(1.0)
        with pytest.raises(TimeoutError):  # nothing ever connected to it
            listener.accept()
    finally:
        listener.close()
    (text,) = texts  # an open port and a closed one read the same: nothing to scan with
    assert "not one of the peers this peer may download from" in text
    assert "127.0.0.1" not in text and str(closed_port) not in text
    still_serves(peer.address)


# --- slow sources and slow clients --------------------------------------------------------------


def _dripper(stop: threading.Event) -> tuple[socket.socket, list[socket.socket]]:
    """A 'peer' that accepts and then drips an HTTP answer one byte a second, forever."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def drip() -> None:
        server.settimeout(0.2)
        while not stop.is_set():  # bounded: the test sets `stop`
            with contextlib.suppress(TimeoutError, OSError):
                held.append(server.accept()[0])
            for conn in list(held):
                with contextlib.suppress(OSError):
                    conn.send(b"H")
            stop.wait(1.0)

    threading.Thread(target=drip, daemon=True).start()
    return server, held


@pytest.mark.timeout(30)
def test_six_slow_sources_hold_only_their_own_clients_and_each_download_has_a_deadline(
        one_peer: Callable[..., Any]) -> None:
    start = time.monotonic()
    stop = threading.Event()
    dripper, held = _dripper(stop)
    address = f"ws://127.0.0.1:{dripper.getsockname()[1]}"
    peer = one_peer(f"--peer-allow={address}")
    threads_before = peer.threads()
    results: list[tuple[float, str]] = []

    def slow_client(n: int) -> None:
        with raw(peer.address, peer.token) as ws:
            init(ws, 100 + n)
            began = time.monotonic()
            synced = _download_from(ws, address, n)
            results.append((time.monotonic() - began, str(synced["error"]["message"])))

    clients = [threading.Thread(target=slow_client, args=(n,), daemon=True) for n in range(6)]
    try:
        for client in clients:
            client.start()
        assert wait_until(lambda: len(held) == 6, 10)  # every download is dripping now
        began = time.monotonic()
        still_serves(peer.address)  # everyone else is served meanwhile
        assert time.monotonic() - began < 3.0
        assert peer.threads() <= threads_before + 6 + 1  # a thread per client, no more
        for client in clients:
            client.join(20)
    finally:
        stop.set()
        dripper.close()
    assert len(results) == 6
    for took, text in results:  # the handshake's deadline covers all of it, not each recv
        assert took < 10 and "did not answer" in text
    assert time.monotonic() - start < 30


def test_a_peer_takes_a_bounded_number_of_clients(one_peer: Callable[..., Any]) -> None:
    from routerlab.core.serving.gate import MAX_SESSIONS
    peer = one_peer()
    with contextlib.ExitStack() as stack:
        for n in range(MAX_SESSIONS):
            init(stack.enter_context(raw(peer.address, peer.token)), 200 + n)
        with pytest.raises(InvalidStatus, match="503"), raw(peer.address, peer.token):
            pass
        assert peer.threads() <= MAX_SESSIONS + 8
    assert wait_until(lambda: peer.threads() <= 8, 5)  # each client's thread ends with it
    still_serves(peer.address)


# --- a bad message is an error, never a death -----------------------------------------------------


BAD: dict[str, Callable[[], list[bytes | memoryview]]] = {
    "inf where an int belongs": lambda: P.pack([{"k": P.SYNC, "id": 9, "sent": float("inf")}]),
    "a list where a map belongs": lambda: P.pack([{"k": P.FAULT, "id": 9, "fault": [1, 2]}]),
    "nested 1000 deep": lambda: P.pack([{"k": P.REGISTER_OPERATION, "device": "p1/cpu:0",
                                         "op": _deep(1000)}]),
    "an unhashable map key": lambda: [bytes(4) + b"\x91\x81\x91\x01\x01"],  # [{[1]: 1}]
    "Publish without transfer": lambda: P.pack([{"k": P.PUBLISH, "data": None}]),
}


def _deep(depth: int) -> Any:
    value: Any = {"op": "DropOp"}
    for _ in range(depth):
        value = {"op": "DropOp", "tensor": value}
    return value


@pytest.mark.slow
def test_a_bad_message_closes_its_connection_frees_its_tensors_and_rss_returns(
        one_peer: Callable[..., Any]) -> None:
    peer = one_peer()
    big = np.ones((32 * MiB,), np.float32)  # 128 MiB

    def hold_then_break(client: int, bad: list[bytes | memoryview]) -> str:
        with raw(peer.address, peer.token) as ws:
            init(ws, client)
            assert step(ws, register(0, big))["error"] is None
            for frame in bad:
                ws.send(frame)
            return closed_with_error(ws)

    hold_then_break(300, P.pack([{"k": "Warm-up"}]))  # numpy and the allocator, warmed once
    assert wait_until(lambda: peer.rss() < 200 * MiB, 10)
    before, threads = peer.rss(), peer.threads()
    with raw(peer.address, peer.token) as keeper:  # a client that keeps going meanwhile
        init(keeper, 399)
        assert step(keeper, register(0, np.arange(4, dtype=np.float32)))["error"] is None
        for n, (name, bad) in enumerate(BAD.items()):
            text = hold_then_break(301 + n, bad())
            assert text.startswith("protocol error:"), (name, text)
        assert wait_until(lambda: peer.rss() < before + 48 * MiB, 10), (before, peer.rss())
        assert wait_until(lambda: peer.threads() <= threads + 1, 5)
        send(keeper, {"k": P.REGISTRY, "id": 7, "device": "p1/cpu:0"})
        assert answer(keeper)[0]["rows"][0][0] == 0  # untouched by the others' failures
    errors = peer.stderr()
    assert errors.count("protocol error from client") == len(BAD) + 1
    assert "Traceback" not in errors
    still_serves(peer.address)


def test_a_message_over_the_frame_limit_is_refused_before_it_is_read(
        one_peer: Callable[..., Any]) -> None:
    assert P.MAX_FRAME_BYTES == 512 * MiB  # Burn's WebSocket client: websocket/client.rs:38-39
    with pytest.raises(LimitError, match="at most 512.0 MiB"):
        P.check_frame(512 * MiB + 1)
    peer = one_peer()
    with raw(peer.address, peer.token) as ws:
        init(ws, 5)
        length = 512 * MiB + 1  # only the header of such a frame is sent
        ws.socket.sendall(bytes([0x82, 0xFF]) + length.to_bytes(8, "big") + bytes(4))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    still_serves(peer.address)


# --- op results, checked before anything is allocated -------------------------------------------


def _matmul(lhs: tuple[int, ...], rhs: tuple[int, ...], out: tuple[int, ...]) -> dict[str, Any]:
    op = MatmulOp(tir(0, lhs, "ReadOnly"), tir(1, rhs, "ReadOnly"), tir(2, out))
    return {"k": P.REGISTER_OPERATION, "device": "p1/cpu:0", "op": encode_op(op)}


def test_an_op_result_is_checked_against_its_declared_shape_and_the_limits(
        one_peer: Callable[..., Any]) -> None:
    peer = one_peer("--client-memory=268435456")  # 256 MiB a client
    column, row = np.ones((16384, 1), np.float32), np.ones((1, 16384), np.float32)  # 128 KiB
    with raw(peer.address, peer.token) as ws:
        init(ws, 6)
        assert step(ws, register(0, column), register(1, row))["error"] is None
        before = peer.rss()
        cases = {  # declared shapes: what is refused, and the line that says so
            "a result its inputs do not give": (_matmul((16384, 1), (1, 16384), (4, 4)),
                                                "is not what its inputs give"),
            "over MAX_ELEMENTS": (_matmul((65536, 1), (1, 65536), (65536, 65536)),
                                  "RouterLab takes at most 2,147,483,648"),
            "1 GiB from 128 KiB, past the share": (_matmul((16384, 1), (1, 16384),
                                                           (16384, 16384)),
                                                   "a client holds at most 256.0 MiB"),
            "inputs that lie about their shapes": (_matmul((1, 1), (1, 1), (1, 1)),
                                                   "a client holds at most 256.0 MiB"),
        }
        for name, (task, says) in cases.items():
            synced = step(ws, task)
            assert synced["error"] is not None and says in synced["error"]["message"], name
        assert peer.rss() < before + 64 * MiB  # no 1 GiB (or 16 GiB) was ever allocated
        send(ws, {"k": P.REGISTRY, "id": 7, "device": "p1/cpu:0"})
        assert [r[0] for r in answer(ws)[0]["rows"]] == [0, 1]  # nothing registered


# --- stopping ----------------------------------------------------------------------------------


@pytest.mark.parametrize("signum", ["SIGTERM", "SIGINT"])
def test_a_peer_stops_within_two_seconds_under_load_and_a_backlog(
        one_peer: Callable[..., Any], signum: str) -> None:
    import signal
    peer = one_peer()
    a = np.ones((2048, 2048), np.float32)
    busy = raw(peer.address, peer.token)
    ws = busy.__enter__()
    init(ws, 7)
    send(ws, register(0, a), register(1, a))
    matmuls = [_matmul((2048, 2048), (2048, 2048), (2048, 2048)) for _ in range(64)]
    for n, task in enumerate(matmuls):  # a long step: 64 matmuls of 2048 x 2048
        task["op"]["out"]["id"] = 2 + n
    send(ws, *matmuls, {"k": P.SYNC, "id": 2})
    flood = P.pack([{"k": P.STATS, "id": 9}] * 256)[0]

    def backlog() -> None:  # behind the step, until the reader stops reading (or the peer ends)
        with contextlib.suppress(OSError, ConnectionClosed, TimeoutError):
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:  # bounded in time
                ws.send(flood)

    threading.Thread(target=backlog, daemon=True).start()
    time.sleep(1.5)
    took = peer.stop(getattr(signal, signum))
    with contextlib.suppress(Exception):
        busy.__exit__(None, None, None)
    assert peer.process.returncode is not None and took < 2.0, took


def test_the_token_is_never_an_option_and_the_new_ones_are() -> None:
    from typer.testing import CliRunner

    from routerlab.cli.app import app

    help_text = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"}).output
    assert "--token" not in help_text  # argv is visible to every user of the machine
    for option in ("--allow-origin", "--peer-allow", "--client-memory"):
        assert option in help_text


def test_peers_present_their_token_to_each_other_for_data(
        one_peer: Callable[..., Any]) -> None:
    source = one_peer(devices=("cpu:0",))
    same = one_peer(f"--peer-allow={source.address}")
    other = one_peer(f"--peer-allow={source.address}", token="another-token")
    for target, ok in ((same, True), (other, False)):
        with Runtime(peers={"src": source.address, "dst": target.address}) as rt:
            x = rt.tensor([1.0, 2.0], device="src/cpu:0", dtype="f32")
            if ok:  # one token for both: the target's download is let in
                assert rt.read(rt.to_device(x, "dst/cpu:0")).tolist() == [1.0, 2.0]
                continue
            with pytest.raises(RouterLabError, match="refused this peer.s token: peers that move"):
                rt.to_device(x, "dst/cpu:0", transport="websocket")
            assert rt.read(x).tolist() == [1.0, 2.0]  # the step was undone on the source
    assert "wrong token (HTTP 403)" in source.stderr()  # the other peer's /data upgrade


def test_a_malformed_peer_allow_is_one_line() -> None:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "routerlab", "serve", "--peer-allow",
                             "http://127.0.0.1:1"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.count("\n") == 1  # a usage error, one line
    assert result.stderr.startswith("error: Invalid value for '--peer-allow': a peer address is "
                                    "ws://HOST:PORT, e.g. ws://127.0.0.1:3001; got "
                                    "'http://127.0.0.1:1'")


@pytest.mark.timeout(30)
def test_a_client_that_drips_a_message_is_cut_and_an_idle_one_is_not(
        one_peer: Callable[..., Any]) -> None:
    from routerlab.core.serving.pace import GRACE_S
    peer = one_peer()
    with raw(peer.address, peer.token) as idle, raw(peer.address, peer.token) as drip:
        init(idle, 8)
        init(drip, 9)
        # a masked binary frame announcing 1 MiB, then its bytes one a second
        drip.socket.sendall(bytes([0x82, 0xFF]) + (1 << 20).to_bytes(8, "big") + bytes(4))
        began = time.monotonic()
        with pytest.raises(ConnectionClosed) as closed:
            while time.monotonic() - began < 20:  # bounded in time
                drip.socket.sendall(b"\x00")
                with contextlib.suppress(TimeoutError):
                    drip.recv(timeout=1)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        assert GRACE_S <= time.monotonic() - began < GRACE_S + 4
        send(idle, {"k": P.REGISTRY, "id": 5, "device": "p1/cpu:0"})  # idle all along: kept
        assert answer(idle)[0]["k"] == P.REGISTRY
    assert "sent a message too slowly" in peer.stderr()


def test_a_bad_download_request_closes_its_data_connection(one_peer: Callable[..., Any]) -> None:
    peer = one_peer()
    for message in ({"k": P.DOWNLOAD, "id": 1, "transfer": 0},  # no client, no transport
                    {"k": P.DOWNLOAD, "id": 1, "client": -1, "transfer": 0, "transport": "iroh"},
                    {"k": P.SYNC, "id": 1}):  # not a /data message
        with raw(peer.address, peer.token, "/data") as ws:
            send(ws, message)
            assert closed_with_error(ws).startswith("protocol error:")
    still_serves(peer.address)


# --- malformed HTTP at the upgrade --------------------------------------------------------------


def _upgrade_status(address: str, headers: list[tuple[str, str]]) -> int:
    """The HTTP status a raw upgrade with exactly these header lines gets (a raw socket: no
    client library folds a repeated header)."""
    host, port = address.removeprefix("ws://").rsplit(":", 1)
    lines = ["GET /session HTTP/1.1", f"Host: {host}:{port}", "Upgrade: websocket",
             "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
             "Sec-WebSocket-Version: 13", *(f"{name}: {value}" for name, value in headers)]
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n" not in head:  # bounded: the socket's timeout, and the peer closes
            chunk = sock.recv(4096)
            if not chunk:
                break
            head += chunk
    return int(head.split(b" ", 2)[1])


@pytest.mark.timeout(60)
def test_a_repeated_origin_or_authorization_is_a_bad_request_and_a_flood_stays_a_few_lines(
        one_peer: Callable[..., Any]) -> None:
    peer = one_peer()
    bearer = f"Bearer {peer.token}"
    twice = ([("Origin", "http://a.example"), ("Origin", "http://b.example"),
              ("Authorization", bearer)],
             [("Authorization", bearer), ("Authorization", bearer)])
    statuses = [_upgrade_status(peer.address, twice[n % 2]) for n in range(200)]
    assert statuses == [400] * 200
    assert _upgrade_status(peer.address, [("Authorization", bearer)]) == 101  # one of each: in
    still_serves(peer.address)
    log = peer.stderr()
    assert "Traceback" not in log and "HTTP 500" not in log  # a port may hold the digits 500
    assert "Origin header sent 2 times" in log and "Authorization header sent 2 times" in log
    assert len(log.splitlines()) <= 12  # a burst, not 200 lines (core/serving/throttle.py)
    assert peer.token not in log
