"""The wire protocol of RouterLab's served peers, modelled on burn-remote's (docs/burn.md, "Remote
peers: the wire protocol").

A frame is one binary WebSocket message holding a MessagePack *list* of messages (burn-remote
sends `Vec<RemoteMessage>` per frame, `crates/burn-remote/src/server/pump.rs:95`). A message is a
map with a kind `"k"`; a message that expects an answer carries a request id `"id"`, and its
response echoes it (`TaskResponse { id, content }`, `crates/burn-remote/src/shared/task.rs:222`).

Two routes, as burn-remote's WebSocket server has (`transport/websocket/server.rs:47-64`):
`/session` for a client's tasks, `/data` for the server-to-server downloads of the bytes path
(`route_external_comm`, `crates/burn-communication/src/external_comm.rs:68-76`).
"""

from __future__ import annotations

from collections.abc import Callable, Sized
from typing import Any

import msgpack

from ..base.errors import LimitError, RouterLabError
from ..base.limits import human_bytes


class CodecError(RouterLabError):
    """A message that is not one of the protocol's, or a value that is not the model's."""

VERSION = 1
"""`PROTOCOL_VERSION` (`crates/burn-remote/src/shared/task.rs:13`); a peer refuses another."""

# /session: client -> server
INIT = "Init"                        # RemoteMessage::Init(SessionInit), task.rs:97-123
OPEN = "Open"                        # one device's session (SessionInit.device_index)
REGISTER_OPERATION = "RegisterOperation"        # Task::RegisterOperation, task.rs:152
REGISTER_TENSOR = "RegisterTensor"              # Task::RegisterTensor, task.rs:173
READ_TENSOR = "ReadTensor"                      # Task::ReadTensor, task.rs:215
EXPOSE_TENSOR_LOCAL = "ExposeTensorLocal"       # task.rs:200-204
REGISTER_TENSOR_LOCAL = "RegisterTensorLocal"   # task.rs:210-214
EXPOSE_TENSOR_REMOTE = "ExposeTensorRemote"     # task.rs:185-191
REGISTER_TENSOR_REMOTE = "RegisterTensorRemote"  # task.rs:184
SYNC = "Sync"                        # Task::SyncBackend, task.rs:216
CLOSE = "Close"                      # RemoteMessage::Close, task.rs:98
# RouterLab's own: one step all or nothing across processes, and looking at a peer.
COMMIT = "Commit"
ROLLBACK = "Rollback"
PUBLISH = "Publish"                  # bytes pushed by the in-process peer (no /data of its own)
REGISTRY = "Registry"
FAULT = "Fault"                      # arm a fault (docs/faults.md); refused unless allowed
STATS = "Stats"                      # counters: a device's copies (with "device"), and what
                                     # crossed this client's /data sockets on the peer

# /data: server -> server (ExternalCommMessage, external_comm.rs:32-36)
DOWNLOAD = "Download"                # TensorRequest(TensorTransferId)
TENSOR = "Tensor"                    # Tensor(TensorData)
NEVER = "Never"                      # RouterLab: the source says it will never expose it
TIMED_OUT = "TimedOut"               # Iroh's "Timed out waiting for tensor transfer"

ERROR = "Error"
"""The answer to a message that could not be read or run: one line, the server goes on."""

TASKS = (REGISTER_OPERATION, REGISTER_TENSOR, READ_TENSOR, EXPOSE_TENSOR_LOCAL,
         REGISTER_TENSOR_LOCAL, EXPOSE_TENSOR_REMOTE, REGISTER_TENSOR_REMOTE)
"""The kinds that carry an op for one device's FIFO."""

MAX_FRAME_BYTES = 512 << 20
"""The largest message a peer or client sends or reads: Burn's WebSocket client caps a frame at
512 MiB (`max_frame_size`, `crates/burn-communication/src/websocket/client.rs:38-39`); RouterLab
caps the whole message (one blob: one tensor's bytes), and websockets refuses a longer one before
reading it. Burn's Iroh transport caps its frames at 1 GiB (`MAX_FRAME_SIZE`,
`crates/burn-remote/src/transport/iroh/node.rs:31,207-213`); RouterLab's peers speak WebSocket
only, so the Iroh bound applies to nothing here (docs/remote.md)."""


def check_frame(size: int) -> None:
    """Refuse, before sending it, a frame the other side would refuse (`MAX_FRAME_BYTES`)."""
    if size > MAX_FRAME_BYTES:
        raise LimitError(f"a message of {human_bytes(size)}; served peers take at most "
                         f"{human_bytes(MAX_FRAME_BYTES)} (Burn's WebSocket frame limit): keep "
                         "a tensor that crosses a socket under it")


BLOB = 1
"""MessagePack extension code of a blob: a large byte string that travels in a frame of its own."""
BLOB_FROM = 1 << 16
"""Byte strings from this size on travel as blobs (small ones stay inside the header)."""


class Blob:
    """Bytes to send as a frame of their own, uncopied (tensor data: `codec.encode_data`).
    MessagePack would copy them twice (pack, then unpack), more than the socket does."""

    __slots__ = ("data",)

    def __init__(self, data: bytes | memoryview | Sized) -> None:
        self.data = data
        """The bytes, or a readback still copying them (`streams.Readback`: sent as it goes)."""


def pack(messages: list[dict[str, Any]]) -> list[bytes | memoryview]:
    """A message's frames: a header (4 bytes: how many blobs follow, then the MessagePack list of
    messages, each blob an extension holding its index), then each blob's bytes as they are."""
    blobs: list[bytes | memoryview] = []

    def blob(value: Any) -> msgpack.ExtType:
        if not isinstance(value, Blob):
            raise CodecError(f"a {type(value).__name__} cannot cross the wire")
        if len(value.data) < BLOB_FROM:
            return value.data  # type: ignore[return-value]
        blobs.append(value.data)  # type: ignore[arg-type]  # a Readback: wire.write_whole
        return msgpack.ExtType(BLOB, (len(blobs) - 1).to_bytes(4, "little"))

    header = msgpack.packb(messages, use_bin_type=True, default=blob)
    return [len(blobs).to_bytes(4, "little") + header, *blobs]


def blobs_after(header: Any) -> int:
    """How many blob frames follow this header frame (read them before `unpack`)."""
    if not isinstance(header, bytes | bytearray | memoryview) or len(header) < 4:
        raise CodecError("a frame must be a binary WebSocket message of at least 4 bytes")
    count = int.from_bytes(header[:4], "little")
    if count > MAX_BLOBS:
        raise CodecError(f"a message with {count} blobs; at most {MAX_BLOBS}")
    return count


MAX_BLOBS = 64


def unpack(header: Any, blobs: list[bytes] | None = None) -> list[dict[str, Any]]:
    """A header frame's messages, its blobs in place; anything that is not a list of
    kind-tagged maps is a `CodecError`."""
    count = blobs_after(header)
    blobs = blobs or []
    if len(blobs) != count:
        raise CodecError(f"the header announces {count} blobs, {len(blobs)} came")

    def ext(code: int, data: bytes) -> Any:
        index = int.from_bytes(data, "little")
        if code != BLOB or index >= len(blobs):  # type: ignore[arg-type]
            raise CodecError(f"unknown extension {code} or blob {index}")
        return blobs[index]  # type: ignore[index]

    try:
        messages = msgpack.unpackb(memoryview(header)[4:], raw=False, strict_map_key=False,
                                   ext_hook=ext)
    except CodecError:
        raise
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError,
            msgpack.StackError) as error:  # TypeError: a map key that cannot be one (a list)
        raise CodecError(f"not MessagePack: {type(error).__name__}: {str(error)[:200]}") \
            from None
    if isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list) or not all(
            isinstance(m, dict) and isinstance(m.get("k"), str) for m in messages):
        raise CodecError("a frame holds a list of messages, each a map with a kind 'k'")
    return messages


FRAGMENT_BYTES = 1 << 18
"""A blob is sent as a fragmented WebSocket message of fragments this long: the receiver parses
one while the next is on its way (one 64 MiB frame takes websockets several times longer)."""
RECV_BUFFER_BYTES = 1 << 22
"""What a blocking client reads from its socket at once (websockets reads 64 KiB)."""


def fragments(frame: bytes | memoryview) -> bytes | memoryview | list[memoryview]:
    """What to hand to a WebSocket `send`: a small frame as it is, a blob in fragments."""
    if len(frame) <= FRAGMENT_BYTES:
        return frame
    view = memoryview(frame)
    return [view[i:i + FRAGMENT_BYTES] for i in range(0, len(view), FRAGMENT_BYTES)]


def receive(recv: Callable[[], Any]) -> list[dict[str, Any]]:
    """One message's messages from a blocking `recv()` (a header, then its blobs)."""
    header = recv()
    return unpack(header, [recv() for _ in range(blobs_after(header))])


def error(request_id: Any, message: str) -> dict[str, Any]:
    return {"k": ERROR, "id": request_id, "message": message}
