"""`TransferRequest`: everything one `to_device` asks for, as one value.

A transfer used to be described by positional options threaded through three layers (path,
policy, a separate `legacy` flag, arrival). They now travel together, from `Runtime.transfer` on
the client to the `Expose*`/`Register*` tasks the sessions run, so every layer reads the same
answer to "how should this tensor move?":

* `device`: where it goes;
* `policy`: how a quantized tensor moves (`native`, `dequantize`, `requantize`, `reject`) or
  `legacy`, Burn 2c06be3 as it is; None follows the runtime's own policy;
* `path`: forced (`same`, `local`, `bytes`, `dispatch`) or None, chosen from the topology;
* `transport`: how a cross-peer download travels (burn-remote's default, Iroh, or WebSocket);
* `arrival`: which side of a same-peer rendezvous the scheduler runs first (None: the runtime's);
* `hops`: how many moves (`device`, back to the source, … alternately).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from .choices import Choice
from .devices import Device, DeviceLike, Path, parse_device
from .errors import DeviceError, RouterLabError
from .policies import Policy, spelled_policy

MAX_HOPS = 10_000
"""More hops than any lesson needs; a larger count is refused before anything moves."""


class Arrival(Choice, noun="arrival order", error=DeviceError):
    """Which side of a same-peer transfer the scheduler runs first (either may, in Burn:
    `crates/burn-remote/src/server/local_comm.rs:31-92`)."""

    SOURCE_FIRST = "source-first"
    TARGET_FIRST = "target-first"


class Transport(Choice, noun="transport", error=RouterLabError):
    """burn-remote's two transports (`crates/burn-remote/Cargo.toml` features `websocket` and
    `iroh`). They differ in what a cross-peer download does when the source never answers."""

    IROH = "iroh"
    WEBSOCKET = "websocket"


DEFAULT_TRANSPORT = Transport.IROH


@dataclass(frozen=True)
class TransferRequest:
    """One transfer, fully described (see the module docstring). Build it with `of`."""

    device: Device
    policy: Policy | None = None
    path: Path | None = None
    transport: Transport | None = None
    """None: the runtime's transport (`Runtime(transport=...)`, Iroh unless told otherwise)."""
    arrival: Arrival | None = None
    hops: int = 1
    _hash: int = field(init=False, repr=False, compare=False)
    """Requests key the caches every move consults (`but`, the plan's): the hash is computed
    once. The codec sends a request field by field, never pickled, so no hash crosses a
    process."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.device, self.policy, self.path,
                                                self.transport, self.arrival, self.hops)))

    def __hash__(self) -> int:
        return self._hash

    @staticmethod
    def of(device: DeviceLike, *, policy: Policy | str | None = None,
           path: Path | str | None = None, transport: Transport | str | None = None,
           arrival: Arrival | str | None = None, hops: int = 1,
           legacy: bool | None = None) -> TransferRequest:
        """Parse every field by name. `legacy` is the older spelling of a policy: True means
        `policy="legacy"`, False means `policy="native"`; given beside a policy that says
        otherwise, it is refused rather than silently ranked.

        Every `to_device` asks, mostly with the same arguments, so the answer is cached (by
        type too: `hops=True` is refused where `hops=1` is not); a refusal raises and is not
        cached, and an unhashable argument is parsed (and refused) without the cache."""
        try:
            return _cached_request(device, policy, path, transport, arrival, hops, legacy)
        except TypeError:  # unhashable: it cannot key the cache
            return _parse_request(device, policy, path, transport, arrival, hops, legacy)

    @property
    def decided_policy(self) -> Policy:
        """The policy, which the client decides once: `Runtime` fills its own into a request
        that names none before the first hop, so the channel and the guard never ask a
        session for it."""
        if self.policy is None:
            raise RouterLabError("this transfer's policy was never decided: build it through "
                                 "Runtime (to_device, transfer), which fills it in")
        return self.policy

    def to(self, device: Device) -> TransferRequest:
        """The same request, one hop to `device` (itself when it already is: `replace` re-runs
        every field through `__init__`, on every move)."""
        if self.hops == 1 and self.device == device:
            return self
        return replace(self, device=device, hops=1)

    def but(self, **changes: object) -> TransferRequest:
        """`replace(self, **changes)`, shared by every move that asks for the same change:
        `replace` runs every field through `__init__` again, on every move of a flow."""
        return _replaced(self, tuple(changes.items()))


def _parse_request(device: DeviceLike, policy: Policy | str | None, path: Path | str | None,
                   transport: Transport | str | None, arrival: Arrival | str | None, hops: int,
                   legacy: bool | None) -> TransferRequest:
    """`TransferRequest.of` itself."""
    chosen = spelled_policy(policy, legacy)
    if isinstance(hops, bool) or not isinstance(hops, int) or not 1 <= hops <= MAX_HOPS:
        raise RouterLabError(f"hops must be a whole number from 1 to {MAX_HOPS}, got {hops!r}")
    return TransferRequest(parse_device(device), chosen,
                           None if path is None else Path.parse(path),
                           None if transport is None else Transport.parse(transport),
                           None if arrival is None else Arrival.parse(arrival), hops)


_cached_request = lru_cache(maxsize=256, typed=True)(_parse_request)


@lru_cache(maxsize=1024)
def _replaced(request: TransferRequest, changes: tuple[tuple[str, object], ...]
              ) -> TransferRequest:
    return replace(request, **dict(changes))  # type: ignore[arg-type]
