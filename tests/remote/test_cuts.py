"""The two waits a served peer bounds by the clock, tested with their bounds made short: a `/data`
connection that asks nothing for `DATA_IDLE_S` is closed, and an answer whose reader does not read
is cut after `SEND_S` (plus its bytes' time). The peers of the other remote tests take 60 s and
30 s to get there; here the same code runs on a connection that never speaks or never reads."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from routerlab.core.base.devices import parse_device
from routerlab.core.remote import protocol as P
from routerlab.core.serving import frames as wire
from routerlab.core.serving import host


class Transport:
    def __init__(self) -> None:
        self.aborted = False

    def abort(self) -> None:
        self.aborted = True


class Silent:
    """A connection whose client never sends and never reads (every send waits for ever)."""

    keepalive_task = None
    remote_address = ("127.0.0.1", 50000)

    def __init__(self) -> None:
        self.transport = Transport()
        self.closed: tuple[int, str] | None = None

    async def recv(self) -> Any:
        await asyncio.Event().wait()

    async def send(self, message: Any) -> None:
        await asyncio.Event().wait()

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


def test_an_idle_data_connection_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host, "DATA_IDLE_S", 0.05)
    peer = host.PeerHost([parse_device("cpu:0")], token="t", say=lambda line: None)
    connection = Silent()
    asyncio.run(asyncio.wait_for(peer._data(connection), 5))  # type: ignore[arg-type]
    assert connection.closed == (1000, "idle")


def test_an_answer_nobody_reads_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire, "SEND_S", 0.05)
    connection = Silent()
    answer = [{"k": P.REGISTRY, "id": 1, "ids": []}]

    async def send() -> None:
        await wire.send_within(connection, answer)  # type: ignore[arg-type]

    with pytest.raises(TimeoutError):
        asyncio.run(asyncio.wait_for(send(), 5))
    assert connection.transport.aborted
