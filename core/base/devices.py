"""Device strings `[peer/]kind:index[@profile]` and the transfer path between two devices.

A `Device` names where a tensor lives: which server process (`peer`, Burn's remote peer), which
kind of memory (`cpu` simulated with numpy, `cuda` real through CuPy), which index, and which
backend `profile` it imitates. The topology alone decides the automatic transfer path
(docs/ARCHITECTURE.md, "Transfer paths"), as `RemoteTensorHandle::change_backend` decides it from
the peer ids (`crates/burn-remote/src/client/runner.rs:406-418`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from .choices import Choice
from .errors import DeviceError, RouterLabError
from .limits import MAX_DEVICE_INDEX
from .profiles import DEFAULT_CPU_PROFILE, DEFAULT_GPU_PROFILE, Profile
from .safe_io import parse_int

LOCAL_PEER = "local"
KINDS = ("cpu", "cuda")
PEER_NAME = r"[A-Za-z][\w.-]*"
"""What a peer's name may be (the part before `/` in a device string)."""
_PATTERN = re.compile(
    rf"^(?:(?P<peer>{PEER_NAME})/)?(?P<kind>[A-Za-z]+):(?P<index>\d+)(?:@(?P<profile>[\w-]+))?$"
)


@dataclass(frozen=True, slots=True, eq=False)
class Device:
    """One device. Equal devices are the same device; `str` is the canonical short form."""

    kind: str
    index: int
    peer: str = LOCAL_PEER
    profile: Profile = DEFAULT_CPU_PROFILE
    _hash: int = field(init=False, repr=False)
    """Devices key the sessions, the clients and every cache a move consults, several lookups
    per move: the hash is computed once, and `parse_device` hands out one object per string, so
    `==` is mostly an identity test."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.kind, self.index, self.peer, self.profile)))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[type[Device], tuple[str, int, str, Profile]]:
        """Pickled by its fields: a string's hash differs between processes, so the cached one
        is computed again where the device is loaded."""
        return Device, (self.kind, self.index, self.peer, self.profile)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not Device:
            return NotImplemented
        return (self._hash == other._hash and self.kind == other.kind
                and self.index == other.index and self.peer == other.peer
                and self.profile is other.profile)

    def __str__(self) -> str:
        peer = "" if self.peer == LOCAL_PEER else f"{self.peer}/"
        profile = "" if self.profile is default_profile(self.kind) else f"@{self.profile}"
        return f"{peer}{self.kind}:{self.index}{profile}"

    def same_backend(self, other: Device) -> bool:
        """One backend type `B` serves both (same kind and profile)."""
        return self.kind == other.kind and self.profile is other.profile


DeviceLike = Device | str


def default_profile(kind: str) -> Profile:
    """The profile a device string without `@profile` gets, and that its `str` leaves out."""
    return DEFAULT_GPU_PROFILE if kind == "cuda" else DEFAULT_CPU_PROFILE


def parse_device(text: DeviceLike) -> Device:
    """`"peer2/cpu:0@ndarray"` → `Device`; a malformed string or unknown kind raises DeviceError."""
    if isinstance(text, Device):
        return text
    return _parse_cached(text) if isinstance(text, str) else _parse(text)


def _parse(text: object) -> Device:
    """The parse itself (a non-string is malformed)."""
    match = _PATTERN.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise DeviceError(f"malformed device {text!r}: expected [peer/]kind:index[@profile], "
                          "for example cpu:0, cuda:0, peer2/cpu:1@ndarray")
    kind = match["kind"].lower()
    if kind not in KINDS:
        raise DeviceError(f"unknown device kind {kind!r} in {text!r}; expected one of: "
                          f"{', '.join(KINDS)}")
    try:
        profile = Profile.parse(match["profile"]) if match["profile"] else default_profile(kind)
    except RouterLabError as error:
        raise DeviceError(f"{text!r}: {error}") from None
    index = parse_int(match["index"], "device index", low=0, high=MAX_DEVICE_INDEX,
                      error=DeviceError)
    return Device(kind, index, match["peer"] or LOCAL_PEER, profile)


_parse_cached = lru_cache(maxsize=256)(_parse)
"""Every move and op names its device as a string; a `Device` is immutable, and a refusal raises,
which is never cached."""


class Path(Choice, noun="transfer path", error=DeviceError):
    """How a tensor moves between two devices (docs/transfers.md, "Paths").

    The router itself has three: `same`, `local` (same peer) and `bytes` (another peer,
    whatever its backend). `dispatch` is Burn's Dispatch backend, a layer above the router,
    moving between backends through the client (`into_data`, then `from_data`). `bridge` is the
    router channel trait's default `change_client_backend`, which `RemoteChannel` overrides and
    only `CaptureChannel` keeps (`crates/burn-capture/src/capture.rs:338-368`); it is kept,
    forced only, to replay what it would do on router devices."""

    SAME = "same"
    LOCAL = "local"
    BYTES = "bytes"
    DISPATCH = "dispatch"
    BRIDGE = "bridge"


def automatic_path(source: Device, target: Device) -> Path:
    """The path the router takes: the same device returns the input; `RemoteTensorHandle::
    change_backend` compares the peers only (`crates/burn-remote/src/client/runner.rs:406-417`),
    so another peer means bytes whatever the backends."""
    if source == target:
        return Path.SAME
    return Path.LOCAL if source.peer == target.peer else Path.BYTES


def decide_path(source: Device, target: Device, forced: Path | None = None) -> Path:
    """A move's path, decided once: the topology's (`automatic_path`), or the forced one if the
    topology can carry it (`check_forced_path` refuses it otherwise)."""
    if forced is None:
        return automatic_path(source, target)
    check_forced_path(forced, source, target)
    return forced


def check_topology(devices: list[Device]) -> None:
    """Refuse devices that no deployment of Burn can have: a burn-remote server hosts one backend
    type (`RemoteServerBuilder<B>`, `crates/burn-remote/src/server/builder.rs:77-89`), so every
    device of one peer shares kind and profile."""
    hosts: dict[str, Device] = {}
    for device in devices:
        first = hosts.setdefault(device.peer, device)
        if not first.same_backend(device):
            peer = "the local peer" if device.peer == LOCAL_PEER else f"peer {device.peer!r}"
            raise DeviceError(
                f"{device} cannot join {peer}: it already hosts {first.kind}@{first.profile} "
                f"({first}), and a burn-remote server hosts one backend "
                "(RemoteServerBuilder<B>, crates/burn-remote/src/server/builder.rs:77-89); put "
                f"{device} on a peer of its own, e.g. {_free_peer(devices)}/{_bare(device)}")


def _bare(device: Device) -> str:
    return str(Device(device.kind, device.index, LOCAL_PEER, device.profile))


def _free_peer(devices: list[Device]) -> str:
    """A peer name the topology does not use yet (`peer2`, else `peer3`, ...): a suggestion
    must not name the peer that just refused the device."""
    used = {device.peer for device in devices}
    return next(f"peer{n}" for n in range(2, len(used) + 3) if f"peer{n}" not in used)


def check_forced_path(path: Path, source: Device, target: Device) -> None:
    """Refuse a forced path the topology cannot carry, before anything is submitted."""
    if path is Path.SAME and source != target:
        raise DeviceError(f"path 'same' needs one device, got {source} and {target}")
    if path is Path.LOCAL and source.peer != target.peer:
        raise DeviceError(f"path 'local' needs both devices on one peer: {source} is on "
                          f"{source.peer!r}, {target} on {target.peer!r}")
