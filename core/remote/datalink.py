"""One `/data` connection of a target server, read straight from its socket into one buffer.

The frames on the wire are WebSocket's (RFC 6455) and the protocol's (`protocol.pack`: a header,
then each blob as a binary message, one whole frame from a source's `/data`, `wire.write_whole`);
only the reader differs from websockets' client. websockets' blocking client copies a downloaded
payload four or five times on its way in (its read buffer, each frame's bytes, the joined
message); this one opens the connection with websockets' own handshake (`ClientProtocol`,
sans-I/O), then reads each frame's payload with `recv_into` into one buffer (allocated once for a
whole frame, grown in place for a fragmented one), so the payload is copied once, by the kernel,
as a raw socket's is. Burn's WebSocket transport reads a whole message into one `Vec<u8>` too
(`crates/burn-communication/src/websocket/client.rs:73`); its Iroh transport streams the bytes
over a QUIC stream, a length and then the bytes (docs/remote.md, "The bytes on `/data`").

Frames from a server are never masked (RFC 6455 §5.1); a close frame ends the link
(`ConnectionError`), a ping is answered, anything malformed is a `CodecError`.

Every wait has a deadline for the whole of it, not for each `recv`: the handshake must be done
within the connection's `timeout`, and a message within the `recv`'s, plus the time its length
takes at `MIN_BYTES_PER_S` (a source that drips its bytes holds the download no longer). The
upgrade carries this process's token for the source (`auth.bearer`).
"""

from __future__ import annotations

import socket
import time
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from . import protocol as P
from .auth import bearer, refusal
from .protocol import CodecError

CLOSE, PING, PONG, CONTINUATION = 0x8, 0x9, 0xA, 0x0
MIN_BYTES_PER_S = 8 << 20
"""The slowest a source may send a message's bytes: each frame adds its length at this rate to
the message's deadline (512 MiB: 64 s)."""


class Refused(ConnectionError):
    """The source refused this peer's upgrade (its token, or its capacity): one line."""


class DataSocket:
    """A client connection to a peer's `/data` route (see the module)."""

    def __init__(self, address: str, timeout: float) -> None:
        from websockets.client import ClientProtocol  # on first use: see the package's __init__
        from websockets.uri import parse_uri

        where = urlsplit(address)
        self.timeout = timeout
        self._deadline = time.monotonic() + timeout
        self.sock = socket.create_connection((where.hostname, where.port), timeout=timeout)
        try:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # the receive
            # buffer is left to the kernel's autotuning: a fixed size (SO_RCVBUF) turns it off,
            # and a raw socket's grows past what one would set (tcp_rmem's maximum)
            self.protocol = ClientProtocol(parse_uri(f"{address}/data"),
                                           max_size=P.MAX_FRAME_BYTES)
            request = self.protocol.connect()
            for name, value in bearer(address).items():
                request.headers[name] = value
            self.protocol.send_request(request)
            self._flush()
            tail = b""  # read the answer to its end and no further: frames are ours to read
            while not self.protocol.events_received():  # bounded: by the handshake's deadline
                self.sock.settimeout(self._left())
                peeked = self.sock.recv(1 << 16, socket.MSG_PEEK)
                if not peeked:
                    raise ConnectionError("the peer closed the connection during the handshake")
                end = (tail + peeked).find(b"\r\n\r\n")
                chunk = self._exact(len(peeked) if end < 0 else end + 4 - len(tail))
                tail = (tail + chunk)[-3:]
                self.protocol.receive_data(chunk)
            if self.protocol.handshake_exc is not None:
                status = getattr(getattr(self.protocol.handshake_exc, "response", None),
                                 "status_code", None)
                if status is not None:
                    raise Refused(refusal(int(status), address))
                raise self.protocol.handshake_exc
        except BaseException:
            self.sock.close()
            raise

    def send(self, frame: bytes | memoryview) -> None:
        """One binary message (masked by websockets, as a client must)."""
        self.sock.settimeout(self.timeout)
        self.protocol.send_binary(bytes(frame))
        self._flush()

    def recv(self, timeout: float) -> memoryview:
        """The next binary message, read-only, its fragments read into one buffer in place,
        within `timeout` seconds plus its length's time at `MIN_BYTES_PER_S` (the module)."""
        self._deadline = time.monotonic() + timeout
        buffer, size, started = np.empty(0, np.uint8), 0, False
        while True:
            head = self._exact(2)
            fin, opcode, length = head[0] & 0x80, head[0] & 0x0F, head[1] & 0x7F
            if head[1] & 0x80:
                raise CodecError("a masked frame from a server (RFC 6455 5.1)")
            if length >= 126:
                length = int.from_bytes(self._exact(2 if length == 126 else 8), "big")
            if opcode >= CLOSE:
                if length > 125:  # RFC 6455 5.5: a control frame's payload is 125 bytes at most
                    raise CodecError(f"a control frame of {length} bytes")
                self._control(opcode, self._exact(length))
                continue
            if (opcode == CONTINUATION) != started:
                raise CodecError(f"an unexpected frame of opcode {opcode} on /data")
            started = True
            if size + length > P.MAX_FRAME_BYTES:
                raise CodecError(f"a message over {P.MAX_FRAME_BYTES} bytes")
            self._deadline += length / MIN_BYTES_PER_S
            if fin and not size:  # a whole message in one frame: its buffer, allocated once
                buffer = np.empty(length, np.uint8)
            elif size + length > len(buffer):  # grows in place (realloc), never copied by us
                buffer.resize(max(size + length, 2 * len(buffer)), refcheck=False)
            self._into(buffer.data[size:size + length])
            size += length
            if fin:
                return buffer.data[:size].toreadonly()

    def reusable(self) -> bool:
        """False once the peer closed or wrote unasked (a restart's close frame)."""
        self.sock.settimeout(0)
        try:
            self.sock.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            return True  # nothing to read: still open, nothing unasked
        except OSError:
            pass
        finally:
            self.sock.settimeout(self.timeout)  # `send` must block again
        return False

    def close(self) -> None:
        self.sock.close()

    def _control(self, opcode: int, payload: bytes) -> None:
        if opcode == CLOSE:
            code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            raise ConnectionError(f"the peer closed the connection ({code} "
                                  f"{payload[2:].decode(errors='replace')})".rstrip() + ")")
        if opcode == PING:
            self.protocol.send_pong(payload)
            self._flush()
        elif opcode != PONG:
            raise CodecError(f"an unknown control frame {opcode} on /data")

    def _exact(self, count: int) -> bytes:
        out = bytearray(count)
        self._into(memoryview(out))
        return bytes(out)

    def _left(self) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the source did not send in time (a deadline for the whole "
                               "handshake or message)")
        return left

    def _into(self, view: Any) -> None:
        while len(view):  # bounded: by the deadline
            self.sock.settimeout(self._left())
            got = self.sock.recv_into(view)
            if not got:
                raise ConnectionError("the peer closed the connection")
            view = view[got:]

    def _flush(self) -> None:
        for data in self.protocol.data_to_send():
            self.sock.sendall(data)
