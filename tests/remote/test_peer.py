"""A served peer as a server: a bad message gets a one-line protocol error and its connection
is closed, never the peer; each client has its own sessions, and ops, reads, registries and
traces read across processes."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import msgpack
import numpy as np
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from routerlab.core import Runtime
from routerlab.core.base.errors import DeviceError, RouterLabError, ShapeError
from routerlab.core.remote import PeerError
from routerlab.core.remote import protocol as P
from routerlab.core.remote.auth import bearer


@contextlib.contextmanager
def _raw(address: str, route: str = "/session") -> Iterator[ClientConnection]:
    with connect(f"{address}{route}", open_timeout=5, additional_headers=bearer(address)) as ws:
        yield ws


def _ask(ws: ClientConnection, frames: object) -> list[dict[str, object]]:
    for frame in frames if isinstance(frames, list) else [frames]:
        ws.send(frame)
    return P.receive(lambda: ws.recv(timeout=5))  # type: ignore[return-value]


@pytest.mark.parametrize(("frame", "says"), [
    (b"\xc1\x00", "at least 4 bytes"),
    (bytes(4) + b"\xc1", "not MessagePack"),
    ("a text frame", "binary"),
    (bytes(4) + msgpack.packb([{"no": "kind"}]), "a list of messages"),
    (b"\xff\xff\xff\xff", "at most 64"),
    (P.pack([{"k": P.SYNC, "id": 1}]), "Sync before Init"),
    (P.pack([{"k": "Shell", "id": 1}]), "unknown message kind 'Shell'"),
    (P.pack([{"k": P.INIT, "id": 1, "version": 99}]), "Init without client, peer"),
    (P.pack([{"k": P.INIT, "id": 1, "version": 99, "client": 5, "peer": "p"}]),
     "protocol version 99"),
])
def test_a_malformed_message_gets_an_error_and_the_peer_goes_on(
        peers: dict[str, str], frame: object, says: str) -> None:
    with _raw(peers["peer1"]) as ws:
        (answer,) = _ask(ws, frame)
        assert answer["k"] == P.ERROR and says in str(answer["message"])
        with pytest.raises(ConnectionClosed) as closed:  # that connection only is closed
            ws.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1002
    with Runtime(peers=peers) as rt:  # the peer still serves
        assert rt.read(rt.tensor([1, 2], device="peer1/cpu:0", dtype="i32")).tolist() == [1, 2]


def test_a_task_the_model_refuses_is_reported_at_sync_and_the_connection_goes_on(
        peers: dict[str, str]) -> None:
    with _raw(peers["peer2"]) as ws:
        _ask(ws, P.pack([{"k": P.INIT, "id": 1, "version": P.VERSION, "client": 12345,
                          "peer": "peer2", "policy": "native"}]))
        drop = {"op": "DropOp", "tensor": {"~": "tir", "id": 7, "shape": [1], "status":
                                           "ReadWrite", "dtype": "f32"}}
        for frame in P.pack([{"k": P.REGISTER_OPERATION, "device": "peer2/cpu:9", "op": drop}]):
            ws.send(frame)
        (answer,) = _ask(ws, P.pack([{"k": P.SYNC, "id": 2}]))
        assert "not served here" in answer["error"]["message"]  # type: ignore[index]
        (answer,) = _ask(ws, P.pack([{"k": P.REGISTRY, "id": 3, "device": "peer2/cpu:0"}]))
        assert answer["k"] == P.REGISTRY and answer["rows"] == []


@pytest.mark.parametrize(("message", "says"), [
    ({"k": P.REGISTER_OPERATION, "device": "peer2/cpu:0",
      "op": {"op": "DropOp", "tensor": {"~": "eval"}}}, "unknown value tag 'eval'"),
    ({"k": "Frobnicate", "id": 3}, "unknown message kind"),
    ({"k": P.DOWNLOAD, "id": 4}, "unknown message kind"),
])
def test_an_ill_typed_task_closes_its_connection(
        peers: dict[str, str], message: dict[str, object], says: str) -> None:
    with _raw(peers["peer2"]) as ws:
        _ask(ws, P.pack([{"k": P.INIT, "id": 1, "version": P.VERSION, "client": 12346,
                          "peer": "peer2", "policy": "native"}]))
        (answer,) = _ask(ws, P.pack([message]))
        assert answer["k"] == P.ERROR and says in str(answer["message"])
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=5)


def test_unknown_route_and_unknown_download(peers: dict[str, str]) -> None:
    with pytest.raises(InvalidStatus, match="404"):  # refused at the upgrade
        connect(f"{peers['peer1']}/nowhere", open_timeout=5,
                additional_headers=bearer(peers["peer1"]))
    with _raw(peers["peer1"], "/data") as ws:  # no such client: over Iroh, a timeout answer
        (answer,) = _ask(ws, P.pack([{"k": P.DOWNLOAD, "id": 9, "client": 1, "transfer": 0,
                                      "transport": "iroh"}]))
        assert answer["k"] == P.TIMED_OUT and answer["id"] == 9


def test_ops_reads_registries_and_explain_across_peers(peers: dict[str, str]) -> None:
    with Runtime(peers=peers) as rt:
        a = rt.tensor(np.eye(2, dtype=np.float32), device="peer1/cpu:0")
        b = rt.tensor([[1.0, 2.0], [3.0, 4.0]], device="peer1/cpu:0", dtype="f32")
        c = rt.matmul(a, b)
        assert rt.read(c).tolist() == [[1, 2], [3, 4]]
        spare = rt.clone(c)
        with pytest.raises(ShapeError):  # refused on the client: nothing reaches the peer
            rt.reshape(spare, (3,))
        rt.drop(spare)
        d = rt.to_device(c, "peer2/cpu:0")
        assert rt.handle_ids("peer1/cpu:0") == [] and rt.handle_ids("peer2/cpu:0") == [d.id]
        kinds = [(e.kind, e.device) for e in rt.explain(d.id)]
        assert ("download", "peer2/cpu:0") in kinds and ("register", "peer2/cpu:0") in kinds
        assert ("publish", "peer1/cpu:0") in [(e.kind, e.device) for e in rt.explain(c.id)]
        view = rt.registry("peer2/cpu:0")
        assert view.rows[0][:3] == [int(d.id), "f32", "[2, 2]"] and "served by" in view.caption
        rt.drop(d)
        assert rt.handle_ids("peer2/cpu:0") == []


def test_a_failed_step_leaves_every_peer_as_it_was(peers: dict[str, str]) -> None:
    with Runtime(peers=peers) as rt:
        x = rt.tensor([1, 2, 3], device="peer1/cpu:0", dtype="u8")
        before = {d: rt.handle_ids(d) for d in rt.devices}
        with pytest.raises(RouterLabError, match="not implemented"):  # legacy uint wall
            rt.to_device(x, "peer2/cpu:1", policy="legacy")
        assert "peer2/cpu:1" not in map(str, rt.devices)  # the device the step made is forgotten
        assert {d: rt.handle_ids(d) for d in rt.devices} == {
            d: ([] if str(d) == "peer1/cpu:0" else ids) for d, ids in before.items()}


def test_each_client_has_its_own_sessions(peers: dict[str, str]) -> None:
    with Runtime(peers=peers) as one, Runtime(peers=peers) as two:
        x = one.tensor([1.0], device="peer1/cpu:0", dtype="f32")
        two.tensor([2.0, 3.0], device="peer1/cpu:0", dtype="f32")
        assert one.handle_ids("peer1/cpu:0") == [x.id] and len(two.handle_ids("peer1/cpu:0")) == 1
        assert one.read(x).tolist() == [1.0]


def test_devices_and_addresses_a_peer_does_not_have(peers: dict[str, str]) -> None:
    with Runtime(peers=peers) as rt:
        with pytest.raises(DeviceError, match="serves cpu:0, cpu:1, not cpu:7"):
            rt.tensor([1.0], device="peer1/cpu:7")
        with pytest.raises(DeviceError, match="not cpu:0@cubecl"):  # one backend per server
            rt.tensor([1.0], device="peer1/cpu:0@cubecl")
        x = rt.tensor([1.0], device="peer1/cpu:0", dtype="f32")
        with pytest.raises(DeviceError, match="inside one process"):
            rt.to_device(x, "peer1/cpu:1", "bridge")
    with pytest.raises(PeerError, match="cannot reach ws://127.0.0.1:1"):
        Runtime(peers={"peer9": "ws://127.0.0.1:1"})
    with pytest.raises(DeviceError, match="ws://HOST:PORT"):
        Runtime(peers={"peer9": "http://example.org"})
    with pytest.raises(DeviceError, match="in-process peer"):
        Runtime(peers={"local": peers["peer1"]})
