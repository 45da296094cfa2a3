"""A `/session` client that starts a message must go on sending it: each message is timed from
its first byte, so a client that drips one holds its connection no longer than `GRACE_S` plus
its bytes' time at `MIN_BYTES_PER_S` (an idle client, between messages, is never cut: a notebook
sits idle between cells; websockets' pings find a dead one).

websockets hands a connection whole messages only, so `PacedConnection` watches the bytes as they
arrive (`data_received`): a message is in progress while a frame is partly read or a fragmented
message is not finished. Time the peer itself does not read (its reader waits for the worker,
and websockets pauses the socket) is not counted against the client.
"""

from __future__ import annotations

import asyncio
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode

GRACE_S = 5.0
"""What any message may take before its pace is checked."""
MIN_BYTES_PER_S = 1 << 20
"""The slowest a client may send a message past `GRACE_S` (1 MiB/s: a 512 MiB tensor in 512 s)."""
CHECK_S = 0.5


class PacedConnection(ServerConnection):
    """A server connection that knows how long its message in progress has taken."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.started: float | None = None
        """When the message in progress began arriving (None between messages)."""
        self.arrived = 0
        self._fragmented = False

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        reader = getattr(self.protocol, "reader", None)
        partial = self._fragmented or bool(len(getattr(reader, "buffer", b"")))
        if not partial:
            self.started = None
        elif self.started is None:
            self.started, self.arrived = self.loop.time(), len(data)
        else:
            self.arrived += len(data)

    def process_event(self, event: Any) -> None:
        if isinstance(event, Frame) and event.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
            self._fragmented = not event.fin
        super().process_event(event)

    def stalled(self) -> bool:
        """Whether the message in progress is behind its pace (see the module)."""
        if self.started is None:
            return False
        if self.recv_messages.paused:  # the peer is not reading: not the client's fault
            self.started, self.arrived = self.loop.time(), 0
            return False
        allowed = GRACE_S + self.arrived / MIN_BYTES_PER_S
        return self.loop.time() - self.started > allowed


async def watch(connection: ServerConnection, cut: Any) -> None:
    """Call `cut()` once `connection`'s message in progress stalls (until it closes)."""
    if not isinstance(connection, PacedConnection):
        return
    while True:  # bounded: cancelled when the connection's handler ends
        await asyncio.sleep(CHECK_S)
        if connection.stalled():
            await cut()
            return
