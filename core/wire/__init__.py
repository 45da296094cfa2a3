"""What crosses the wire between a burn-remote client and its server, and when (docs/burn.md,
sections 19 to 22).

- `closures`: CubeCL's device queue, where every call waits as a closure until 32 are queued, a
  call waits for an answer, or a move flushes it;
- `batch`: the client's `OutgoingBatch` and Burn's thresholds;
- `queue`: a device's client: the closure queue in front of the service, which buffers
  fire-and-forget tasks and flushes them on a threshold, a call that needs an answer, or a
  transfer; and where a server panic surfaces;
- `streams`: the stream every call carries, one session's single FIFO, and `register_alias`;
- `graphs`: the router fuser's graphs and the server's graph cache (messages and bytes);
- `hosts`: which devices a server hosts (`SessionInfo`, Dispatch's enumeration).
"""

from .batch import FLUSH_BYTES_THRESHOLD, FLUSH_THRESHOLD, OutgoingBatch, WireTask
from .closures import CHANNEL_MAX_TASK, ClosureQueue, Drain
from .graphs import (
    GraphCache,
    GraphOp,
    RouterFuser,
    WireMessage,
    compare_runs,
    estimate_saved_pct,
    layers,
)
from .hosts import SessionInfo, host_devices
from .queue import (
    ANSWERED,
    BUFFERED,
    FLUSHED,
    Batch,
    Drained,
    Flush,
    Surfaced,
    WireQueue,
    flush_reason,
    task_kind,
)
from .streams import Call, Outcome, StreamedSession, every_order, interleave, interleavings

__all__ = [
    "ANSWERED", "BUFFERED", "CHANNEL_MAX_TASK", "FLUSHED", "FLUSH_BYTES_THRESHOLD",
    "FLUSH_THRESHOLD", "Batch", "Call", "ClosureQueue", "Drain", "Drained", "Flush", "GraphCache",
    "GraphOp", "Outcome", "OutgoingBatch", "RouterFuser", "SessionInfo", "StreamedSession",
    "Surfaced", "WireMessage", "WireQueue", "WireTask", "compare_runs", "estimate_saved_pct",
    "every_order", "flush_reason", "host_devices", "interleave", "interleavings", "layers",
    "task_kind",
]
