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

from typing import Any

import msgpack

from routerlab.core.errors import RouterLabError


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
STATS = "Stats"                      # what crossed this client's sockets on the peer

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

MAX_FRAME_BYTES = 4 << 30
"""The largest frame a peer reads: a tensor of `MAX_ELEMENTS` (docs/limits.md) at 2 bytes an
element; websockets refuses a longer one before reading it."""


def pack(messages: list[dict[str, Any]]) -> bytes:
    """One frame."""
    return msgpack.packb(messages, use_bin_type=True)  # type: ignore[no-any-return]


def unpack(frame: Any) -> list[dict[str, Any]]:
    """A frame's messages; anything that is not a list of kind-tagged maps is a `CodecError`."""
    if not isinstance(frame, bytes | bytearray | memoryview):
        raise CodecError("a frame must be a binary WebSocket message")
    try:
        messages = msgpack.unpackb(frame, raw=False, strict_map_key=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as error:
        raise CodecError(f"not MessagePack: {error}") from None
    if isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list) or not all(
            isinstance(m, dict) and isinstance(m.get("k"), str) for m in messages):
        raise CodecError("a frame holds a list of messages, each a map with a kind 'k'")
    return messages


def error(request_id: Any, message: str) -> dict[str, Any]:
    return {"k": ERROR, "id": request_id, "message": message}
