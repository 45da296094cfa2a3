"""Which devices a server hosts, and what the client learns of them at the handshake.

A Dispatch server enumerates its backend's devices and trusts the list only when it finds more
than one: otherwise it hosts a single default device (`crates/burn-dispatch/src/
remote_server.rs:21-47`), because the wgpu family and the CPU backends (Flex, NdArray) cannot
enumerate hardware. The session's first answer, `SessionInfo`, carries the protocol version, the
selected device's settings and the server's device count (`crates/burn-remote/src/server/
pump.rs:59-69`), which the client publishes for `RemoteDevice::defaults` and `enumerate`
(`crates/burn-remote/src/client/service.rs:183-195,598-600`).

So a Dispatch server of a CPU backend hosts one device, index 0. That is Dispatch's rule, not
burn-remote's: `RemoteServerBuilder::new(devices)` hosts any non-empty list it is given,
`devices[0]` the default (`crates/burn-remote/src/server/builder.rs:84-95`). RouterLab's `cpu:0`
and `cpu:1` of one peer stand for two devices of one server (such a builder's, or a host with two
GPUs whose enumeration found both): a move between them is the same-peer `local` path.
"""

from __future__ import annotations

from dataclasses import dataclass

PROTOCOL_VERSION = 1
"""burn-remote's protocol version (`crates/burn-remote/src/shared/task.rs:12-13`)."""


def host_devices(enumerated: int) -> int:
    """How many devices a Dispatch server hosts when enumeration found `enumerated`."""
    if enumerated < 0:
        raise ValueError("a count of devices is never negative")
    return enumerated if enumerated > 1 else 1


@dataclass(frozen=True)
class SessionInfo:
    """The handshake's answer (pump.rs:61-69)."""

    device_count: int
    settings: str = "DeviceSettings::default()"
    version: int = PROTOCOL_VERSION

    @classmethod
    def of(cls, enumerated: int, settings: str = "DeviceSettings::default()") -> SessionInfo:
        return cls(host_devices(enumerated), settings)

    def device_names(self, kind: str) -> list[str]:
        """The device strings a client can open on this server."""
        return [f"{kind}:{index}" for index in range(self.device_count)]
