"""The `/data` wire: a blob written as one frame from its own memory (`wire.write_whole`), or as
websockets' fragments, arrives bit-exact in one read-only buffer (`DataSocket`), and a frame cut by
a close is never taken."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from routerlab.core import Runtime
from routerlab.core.base.devices import parse_device
from routerlab.core.base.dtypes import DType
from routerlab.core.base.policies import Policy
from routerlab.core.fix import qtensor
from routerlab.core.remote import protocol as P
from routerlab.core.remote.datalink import DataSocket
from routerlab.core.remote.readback import Readback, ServedTransfers
from routerlab.core.router.ir import ExposeRemoteOp, TensorId, TensorIr, TensorStatus
from routerlab.core.serving.frames import write_whole
from routerlab.core.serving.host import PeerHost, ServedClient

BLOB = np.random.default_rng(1).integers(0, 256, 32 << 20, dtype=np.uint8).tobytes()
"""Many of `write_whole`'s slices, more than loopback's socket buffers hold: a writer whose
reader waits must yield to the loop in between."""


@contextmanager
def serving(handler: Callable[[Any], Awaitable[None]]) -> Iterator[str]:
    """A websockets server on a free loopback port, in a thread of its own, running `handler`."""
    from websockets.asyncio.server import serve

    ready: dict[str, Any] = {}
    started = threading.Event()

    async def main() -> None:
        stop = asyncio.Event()
        ready["stop"], ready["loop"] = stop, asyncio.get_running_loop()
        async with serve(handler, "127.0.0.1", 0, compression=None, ping_interval=None) as server:
            ready["port"] = next(iter(server.sockets)).getsockname()[1]
            started.set()
            await stop.wait()

    thread = threading.Thread(target=asyncio.run, args=(main(),))
    thread.start()
    assert started.wait(10)
    try:
        yield f"ws://127.0.0.1:{ready['port']}"
    finally:
        ready["loop"].call_soon_threadsafe(ready["stop"].set)
        thread.join(10)
    assert not thread.is_alive()


def test_a_whole_blob_arrives_bit_exact_in_one_read_only_buffer() -> None:
    async def answer(connection: Any) -> None:
        await connection.recv()
        await write_whole(connection, memoryview(BLOB))
        await connection.send(b"small")  # the link goes on after a whole frame
        await connection.send(P.fragments(BLOB))  # websockets' fragments: one grown buffer
        await connection.recv()

    with serving(answer) as address:
        link = DataSocket(address, 5.0)
        try:
            link.send(b"go")
            got = link.recv(5.0)
            assert got.readonly and got.tobytes() == BLOB
            assert link.recv(5.0).tobytes() == b"small"
            assert link.recv(5.0).tobytes() == BLOB
            assert link.reusable()
            link.send(b"bye")
        finally:
            link.close()


def test_a_close_during_a_whole_frame_cuts_it_and_the_reader_refuses_it() -> None:
    """A restart closes every connection (1012): its close frame must not end up inside a blob
    that the reader then takes as the tensor's bytes."""
    async def answer(connection: Any) -> None:
        await connection.recv()
        closing = asyncio.create_task(connection.close(1012, "the peer restarted"))
        await write_whole(connection, memoryview(BLOB))
        await closing

    with serving(answer) as address:
        link = DataSocket(address, 5.0)
        try:
            link.send(b"go")
            time.sleep(0.3)  # the socket buffers fill: the writer waits, the close goes out
            with pytest.raises(ConnectionError):
                link.recv(5.0)
        finally:
            link.close()


def test_a_link_the_peer_closed_unasked_is_not_reused() -> None:
    """A restarted source closes its `/data` connections: the next download opens a new one."""
    async def answer(connection: Any) -> None:
        await connection.close(1012, "the peer restarted")

    with serving(answer) as address:
        link = DataSocket(address, 5.0)
        try:
            deadline = time.monotonic() + 5
            while link.reusable() and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not link.reusable()
            link.send(b"still blocking")  # reusable() left the socket as it found it
        except ConnectionError:
            pass  # the peer may have gone (broken pipe, reset): the point is no BlockingIOError
        finally:
            link.close()


class _Counting:
    """The one thing `qtensor.readback` asks of a backend."""

    def __init__(self) -> None:
        self.copied: list[int] = []

    def count_copy(self, nbytes: int) -> None:
        self.copied.append(nbytes)


class _Watched(Readback):
    """A readback that remembers how far it had got each time the sender asked."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.seen: list[int] = []

    async def ready(self, sent: int) -> int:
        self.seen.append(await super().ready(sent))
        return self.seen[-1]


def _stream_from_a_thread(regions: list[np.ndarray], fail_at: int | None = None
                          ) -> Callable[[Any], Awaitable[None]]:
    """A `/data` answer whose blob is read back on another thread, a chunk every 2 ms, while
    `write_whole` sends what is final (as a served source does, `streams`)."""
    async def answer(connection: Any) -> None:
        await connection.recv()
        stream = _Watched(asyncio.get_running_loop(), (0,), None)

        def slowly(buffer: np.ndarray, done: int) -> None:
            if fail_at is not None and done >= fail_at:
                stream.fail()
                raise MemoryError("gone")
            stream.advance(buffer, done)
            time.sleep(0.002)

        def read_back() -> None:
            with contextlib.suppress(MemoryError):
                qtensor.readback(_Counting(), regions, slowly)  # type: ignore[arg-type]

        worker = threading.Thread(target=read_back)
        worker.start()
        while stream.buffer is None:
            await asyncio.sleep(0.001)
        await write_whole(connection, stream)
        worker.join(10)
        answer.seen = stream.seen  # type: ignore[attr-defined]
        if fail_at is None:
            await connection.recv()

    return answer


def test_a_readback_in_progress_is_sent_as_it_goes_and_arrives_bit_exact() -> None:
    """The sender writes each chunk once the readback has copied it, long before the readback
    ends: the reader gets the readback's bytes."""
    values = np.frombuffer(BLOB[:(8 << 20) + 3], np.int8)
    scales = np.random.default_rng(2).standard_normal(5).astype(np.float32)
    answer = _stream_from_a_thread([values, scales])
    with serving(answer) as address:
        link = DataSocket(address, 5.0)
        try:
            link.send(b"go")
            got = link.recv(5.0)
            assert got.readonly and got.tobytes() == values.tobytes() + scales.tobytes()
            link.send(b"bye")
        finally:
            link.close()
    seen = answer.seen  # type: ignore[attr-defined]
    assert seen[0] < len(got) // 2 and seen[-1] == len(got) and len(seen) > 2


def test_a_readback_that_fails_midway_cuts_the_frame() -> None:
    """The target never takes the bytes sent before a readback failed for the tensor's."""
    values = np.frombuffer(BLOB[:8 << 20], np.int8)
    with serving(_stream_from_a_thread([values], fail_at=3 << 20)) as address:
        link = DataSocket(address, 5.0)
        try:
            link.send(b"go")
            with pytest.raises(ConnectionError):
                link.recv(5.0)
        finally:
            link.close()



def test_a_readback_is_found_while_it_runs_if_it_travels_as_a_blob(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A download finds a native readback in progress by its tensor, only while it runs, and only
    one large enough to be a blob of its own (a smaller one goes inside the header, once done)."""
    loop = asyncio.new_event_loop()
    quantized = ServedTransfers(loop)
    rt = Runtime(quantized=quantized)
    found: list[bool] = []
    advance = Readback.advance

    def spy(stream: Readback, buffer: np.ndarray, done: int) -> None:
        advance(stream, buffer, done)
        found.append(quantized.stream(rt.devices[0], int(tensor.id)) is stream)

    monkeypatch.setattr(Readback, "advance", spy)
    try:
        for elements, travels in ((P.BLOB_FROM, True), (P.BLOB_FROM // 2, False)):
            values = np.random.default_rng(elements).standard_normal(elements, np.float32)
            tensor = rt.quantize(rt.tensor(values, device="cpu:0"), "q8s")
            found.clear()
            assert rt.read_quantized(tensor).to_bytes() == rt.read_quantized(tensor).to_bytes()
            assert found and set(found) == {travels}
            assert not quantized.streams
    finally:
        loop.close()


def test_a_readback_before_its_expose_began_is_not_taken_for_it() -> None:
    """A download takes the readback of the exposed tensor only once the expose is running: one
    that runs while the expose still waits in the session's queue belongs to another task."""
    async def check() -> None:
        client = ServedClient(PeerHost([parse_device("cpu:0")]), 1, "peer1", Policy.NATIVE,
                              False)
        session = client.session("peer1/cpu:0")
        tensor = TensorIr(TensorId(3), (P.BLOB_FROM,), TensorStatus.READ_ONLY, DType.I8)
        expose = ExposeRemoteOp(tensor, 7)
        stream = client.quantized.streams[(session.device, 3)] = Readback(
            asyncio.get_running_loop(), tensor.shape, tensor.dtype)
        stream.advance(np.empty(P.BLOB_FROM, np.uint8), 0)
        client.exposing[7] = (session, expose)
        session.queue.append((expose, None))
        assert client.readback(7) is None
        session.queue.popleft()  # the session starts the expose: its readback is this one
        assert client.readback(7) is stream

    asyncio.run(check())
