"""A served source sends a tensor's canonical bytes while its readback is still copying them.

Burn's `ExposeTensorRemote` reads the tensor back into one `TensorData`, then serves it to the
target's download (`crates/burn-remote/src/server/worker.rs:311-364`, `external_comm.rs:204-227`):
the readback and the wire run one after the other. A served peer keeps every byte and every counted
copy of that path, and overlaps the two: the readback (`qtensor.q_into_data`, run by the session on
its worker thread) reports each chunk it has copied, and the `/data` route, on the event loop,
writes the chunks already final into the socket (`wire.write_whole`). What crosses the wire is the
readback's own buffer, the very bytes then published, so a download that starts early sends exactly
what one that starts late would.

A readback is found by the tensor it reads (`ServedTransfers.streams`): any readback of one
tensor yields the same canonical bytes (a primitive is never mutated).
"""

from __future__ import annotations

import asyncio
import contextlib

import numpy as np

from ..base.data import TensorData
from ..base.devices import Device
from ..base.dtypes import AnyDType
from ..base.policies import Policy
from ..fix import qtensor
from ..fix.arms import QuantizedTransfers
from ..router.interpreter import TensorInterpreter
from ..router.ir import TensorIr
from . import protocol as P

STALL_S = 5.0
"""The longest a sender waits for the next chunk of a readback before it gives the download up
(a readback copies a chunk in well under a millisecond)."""


class Readback:
    """One readback in progress: its buffer and how much of it is final (see the module)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, shape: tuple[int, ...],
                 dtype: AnyDType) -> None:
        self.loop, self.shape, self.dtype = loop, shape, dtype
        self.buffer: np.ndarray | None = None
        self.done = 0
        self.failed = False
        self._moved = asyncio.Event()  # touched on the loop only (`_wake`)
        self._waiting = False

    def __len__(self) -> int:
        assert self.buffer is not None, "a readback is found only once its buffer exists"
        return int(self.buffer.nbytes)

    def view(self) -> memoryview:
        """The buffer, of which the first `done` bytes are final."""
        assert self.buffer is not None, "a readback is found only once its buffer exists"
        return self.buffer.data

    def advance(self, buffer: np.ndarray, done: int) -> None:
        """`qtensor.Progress`, on the session's thread: `done` leading bytes are final."""
        self.buffer, self.done = buffer, done
        self._tell()

    def fail(self) -> None:
        self.failed = True
        self._tell()

    def _tell(self) -> None:
        if self._waiting:  # only a waiting sender is woken: a readback nobody sends costs nothing
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody is waiting
                self.loop.call_soon_threadsafe(self._moved.set)

    async def ready(self, sent: int) -> int:
        """How many leading bytes are final, once more than `sent` are (on the loop)."""
        while True:  # bounded: each wait lasts at most STALL_S
            self._moved.clear()
            self._waiting = True  # before reading `done`: a chunk finished after it wakes us
            if self.failed:
                raise ConnectionError("the readback failed")
            if self.done > sent:
                self._waiting = False
                return self.done
            await asyncio.wait_for(self._moved.wait(), STALL_S)


class ServedTransfers(QuantizedTransfers):
    """The fix's quantized arms on a served peer: a native readback reports its progress."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.streams: dict[tuple[Device, int], Readback] = {}
        """Readbacks in progress, by device and tensor id (written on the session's thread)."""

    def read_tensor(self, interp: TensorInterpreter, ir: TensorIr,
                    policy: Policy) -> TensorData:
        if policy is not Policy.NATIVE:
            return super().read_tensor(interp, ir, policy)
        q = interp.handles.get_tensor_handle(ir)
        key = (interp.device, int(ir.id))
        stream = self.streams[key] = Readback(self.loop, q.shape, q.dtype)
        try:
            return qtensor.q_into_data(interp.backend, q, stream.advance)
        except BaseException:
            stream.fail()
            raise
        finally:
            if self.streams.get(key) is stream:
                del self.streams[key]

    def stream(self, device: Device, tensor_id: int) -> Readback | None:
        """The readback of that tensor in progress, once its buffer exists and if it travels as a
        blob of its own (smaller bytes go inside the header: they are waited for, a moment)."""
        stream = self.streams.get((device, tensor_id))
        if stream is None or stream.buffer is None or len(stream) < P.BLOB_FROM:
            return None
        return stream

