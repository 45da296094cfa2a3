"""A served peer's side of the wire: reading a message (a header frame, then the blobs it
announces), checking and decoding it (`decoded`), and sending answers within a deadline, a
`/data` blob as one frame written from its own memory (`write_whole`).

A message is checked against the protocol's schema (`remote.schema`) and its op or pushed data
decoded in the reader, so whatever fails inside is one `CodecError` before anything runs; an
answer a client does not read cuts its connection after `SEND_S` (plus its bytes' time at
`MIN_BYTES_PER_S`), so no client is waited for without end.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..base.errors import RouterLabError
from ..remote import protocol as P
from ..remote import schema
from ..remote.codec import CodecError, decode_data, decode_op, task_kind
from ..remote.datalink import MIN_BYTES_PER_S
from ..remote.readback import Readback

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

BLOB_WAIT_S = 30.0
"""The longest the blob frames a header announces may take to follow it."""
SEND_S = 30.0
"""The longest an answer may wait for its reader, beyond its bytes' time at `MIN_BYTES_PER_S`."""

WRITE_BYTES = 1 << 20
"""What `/data` hands the transport at once: asyncio copies whatever the socket does not take
into its own buffer, so a slice much larger than the socket's buffer is mostly copied twice (4
MiB slices cost about 1.7 times the CPU of 1 MiB ones, sending 64 MiB over loopback)."""


def decoded(message: dict[str, Any]) -> dict[str, Any]:
    """A `/session` message checked against the protocol (`schema`), its op or pushed data
    decoded in place: anything else is one `CodecError`, whatever failed inside."""
    schema.check(message)
    try:
        if message["k"] in P.TASKS:
            op = decode_op(message["op"])
            if task_kind(op) != message["k"]:
                raise CodecError(f"a {type(op).__name__} travels as {task_kind(op)}, not "
                                 f"{message['k']}")
            message["op"] = op
        elif message["k"] == P.PUBLISH and message.get("data") is not None:
            message["data"] = decode_data(message["data"])
    except CodecError:
        raise
    except (RecursionError, ArithmeticError, LookupError, TypeError, ValueError,
            AttributeError, RouterLabError) as error:
        raise CodecError(f"{message['k']}: undecodable ({type(error).__name__})") from None
    return message


async def enqueue(queue: asyncio.Queue[Any], message: dict[str, Any],
                   worker: asyncio.Task[None]) -> bool:
    """Put `message` for the worker, waiting for room (backpressure); False when the worker
    ended meanwhile (its connection is closing: nothing will take the message)."""
    if worker.done():
        return False
    put = asyncio.ensure_future(queue.put(message))
    await asyncio.wait({put, worker}, return_when=asyncio.FIRST_COMPLETED)
    if not put.done():
        put.cancel()
        return False
    return True


async def receive(connection: ServerConnection, header: Any) -> list[dict[str, Any]]:
    """The messages of a header frame and the blob frames it announces (each within
    `BLOB_WAIT_S`: a client that announces blobs and sends none is a protocol error)."""
    blobs = []
    for _ in range(P.blobs_after(header)):
        try:
            blobs.append(await asyncio.wait_for(connection.recv(), BLOB_WAIT_S))
        except TimeoutError:
            raise CodecError(f"an announced blob did not come within {BLOB_WAIT_S:g} s") \
                from None
    return P.unpack(header, blobs)  # type: ignore[arg-type]  # a text blob is refused there


async def send_within(connection: ServerConnection, messages: list[dict[str, Any]],
                       whole: bool = False) -> int:
    """`_send`, within `SEND_S` plus the bytes' time at `MIN_BYTES_PER_S`: a client that does
    not read its answers is cut (`TimeoutError`), never waited for."""
    size = sum(len(m["data"]["bytes"].data) for m in messages
               if isinstance(m.get("data"), dict) and isinstance(m["data"].get("bytes"), P.Blob))
    try:
        return await asyncio.wait_for(send(connection, messages, whole),
                                      SEND_S + size / MIN_BYTES_PER_S)
    except TimeoutError:
        connection.transport.abort()
        raise


async def send(connection: ServerConnection, messages: list[dict[str, Any]],
                whole: bool = False) -> int:
    """Send `messages`; return how many bytes their frames took. With `whole` (the `/data`
    route, whose reader is `DataSocket`), each blob goes as one frame written from its own
    memory (`write_whole`); otherwise in fragments through websockets."""
    header, *blobs = P.pack(messages)
    for frame in (header, *blobs):  # refused before a byte is sent: the answer says why
        P.check_frame(len(frame))
    await connection.send(header)
    for blob in blobs:  # no await between the header and a whole blob: nothing interleaves
        if whole:
            await write_whole(connection, blob)
        else:
            await connection.send(P.fragments(blob))
    return len(header) + sum(len(blob) for blob in blobs)


async def write_whole(connection: ServerConnection, blob: bytes | memoryview | Readback) -> None:
    """One unfragmented binary frame (RFC 6455 5.2: a server's frames are unmasked): its header,
    then the blob handed to the transport as it is. websockets would copy the payload into the
    serialized frame first; asyncio copies only what the socket does not take at once, a slice at
    a time. A readback in progress is written as its chunks become final (`streams`); one that
    fails or stalls cuts the connection, so the target never takes a partial frame."""
    length = len(blob)
    if length < 126:
        head = bytes([0x82, length])
    elif length < 1 << 16:
        head = bytes([0x82, 126]) + length.to_bytes(2, "big")
    else:
        head = bytes([0x82, 127]) + length.to_bytes(8, "big")
    from websockets.protocol import State

    connection.transport.write(head)
    sent = 0
    while sent < length:  # bounded: a readback that stalls raises within STALL_S
        try:
            ready = await blob.ready(sent) if isinstance(blob, Readback) else length
        except (ConnectionError, TimeoutError):
            connection.transport.abort()
            return
        view = blob.view() if isinstance(blob, Readback) else memoryview(blob)
        for start in range(sent, ready, WRITE_BYTES):
            if connection.protocol.state is not State.OPEN:  # a close frame went out mid-frame:
                connection.transport.abort()  # the reader must see the frame cut, not take it
                return
            connection.transport.write(view[start:min(start + WRITE_BYTES, ready)])
            await connection.drain()
        sent = ready
