"""The guard: what a transfer *would* do under a policy, decided before anything is submitted.

Burn's router dispatches on `is_float / is_int / is_bool` and lets everything else fall through
into `todo!()` / `unimplemented!()` deep inside a session (docs/burn.md, 7): the panic kills the
session, and the target is left waiting: forever on the same peer or over WebSocket, 300 s over
Iroh, after which it logs the error and goes on without the tensor. RouterLab asks first:
`is_quantized_handle` and `can_move_to_device` are the two predicates, and `plan_transfer`
describes one transfer completely (path, outcome, the dtype it arrives in, and in legacy mode the
walls Burn has on that path, in the order a call meets them). The client refuses on the plan
(policy `reject`, or a layout the target cannot hold), so a refused transfer leaves every
registry untouched.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..base.choices import Choice
from ..base.devices import Device, Path, decide_path
from ..base.dtypes import AnyDType, QFloat
from ..base.errors import RouterLabError, TransferRejected
from ..base.policies import Policy
from ..base.request import DEFAULT_TRANSPORT, Transport
from ..base.view import TableView, Viewable
from ..quant import QuantScheme
from ..quant.backend_rules import check_arrival, stored_scheme
from ..router.backend import HandleKind, Kind, kind_of
from ..router.interpreter import burn_debug
from .advertised import advertise
from .qtensor import arrival_scheme

SRC_ROUTER = "crates/burn-router/src/ops/qtensor.rs:34-39"
SRC_BRIDGE = "crates/burn-router/src/channel/base.rs:58"
SRC_REGISTER = "crates/burn-remote/src/client/channel.rs:42"
REMOTE_REGISTER_PANIC = "Can't register manually a tensor on a remote channel."
SRC_ROUTER_Q_INTO_DATA = "crates/burn-router/src/ops/qtensor.rs:45-46"
SRC_INTERP = "crates/burn-router/src/interpreter.rs"
SRC_WORKER = "crates/burn-remote/src/server/worker.rs:119-134"
SRC_IROH_GIVES_UP = ("crates/burn-remote/src/transport/iroh/transfer.rs:78-110, 138; "
                     "crates/burn-remote/src/server/worker.rs:140-146, 267-273")
SRC_DISPATCH_SAME_BACKEND = "crates/burn-dispatch/src/macros.rs:168-179"
ROUTER_LAYER = "client (router)"


def is_quantized_handle(kind: HandleKind | Kind | AnyDType) -> bool:
    """True for a `HandleKind::Quantized` (or its `Kind`, or a `QFloat` dtype): the one kind of
    handle Burn's transfer arms never handled (`interpreter.rs:88-127`)."""
    return _kind(kind) is Kind.QUANTIZED


def can_move_to_device(kind: HandleKind | Kind | AnyDType, policy: Policy | str = Policy.NATIVE,
                       ) -> bool:
    """Whether a tensor of this kind arrives on another device under `policy`.

    Quantized: under `native`, `dequantize` and `requantize`; not under `reject` (refused) or
    `legacy` (Burn panics). Plain kinds move under every policy, except unsigned ints in legacy
    mode, which hit Burn's uint walls (interpreter.rs:88-100, 2160-2164)."""
    chosen = Policy.parse(policy)
    moved = _kind(kind)
    if moved is Kind.QUANTIZED:
        return chosen.moves
    return not (chosen is Policy.LEGACY and moved is Kind.UINT)


def _kind(kind: HandleKind | Kind | AnyDType) -> Kind:
    if isinstance(kind, HandleKind):
        return kind.kind
    return kind if isinstance(kind, Kind) else kind_of(kind)


class Outcome(Choice):
    """What a planned transfer ends in."""

    NOOP = "no-op"
    MOVE = "moves"
    REFUSED = "refused"
    PANIC = "panics"


@dataclass(frozen=True)
class Wall:
    """One place where Burn 2c06be3 stops a transfer: who runs it, Burn's text, the source."""

    layer: str
    function: str
    message: str
    source: str
    reached: bool = True
    """False for a wall that stands in the code but that no call can reach at 2c06be3."""

    def line(self) -> str:
        reach = "" if self.reached else " (unreachable: an earlier wall fires first)"
        return f"{self.layer}: {self.function} -> {self.message!r} [{self.source}]{reach}"

    def to_dict(self) -> dict[str, Any]:
        return {"layer": self.layer, "function": self.function, "message": self.message,
                "source": self.source, "reached": self.reached}


@dataclass(frozen=True)
class TransferPlan(Viewable):
    """Everything the guard knows about one transfer before it happens."""

    dtype: AnyDType
    shape: tuple[int, ...]
    source: Device
    target: Device
    path: Path
    policy: Policy
    outcome: Outcome
    action: str
    """One line: what this policy does on this path."""
    arrival_dtype: AnyDType
    walls: tuple[Wall, ...] = ()
    """Legacy only: Burn's walls on this path, outermost first. For a quantized tensor the first
    is the router entry `q_to_device`; `to_device` (the channel) stops at the first after it."""
    refusal: str | None = None
    hangs: bool = False
    """Legacy: the target session would wait forever for the transfer (same peer, or a
    cross-peer download over WebSocket; over Iroh it gives up after 300 s and goes on)."""
    notes: tuple[str, ...] = field(default=())
    transport: Transport = DEFAULT_TRANSPORT
    """How a cross-peer download travels; it decides whether a bytes-path target hangs."""

    @property
    def ok(self) -> bool:
        return self.outcome in (Outcome.NOOP, Outcome.MOVE)

    @property
    def channel_wall(self) -> Wall | None:
        """The wall `Runtime.to_device` (the channel's `change_client_backend`) stops at."""
        return next((w for w in self.walls if w.reached and w.layer != ROUTER_LAYER), None)

    def raise_if_refused(self) -> None:
        if self.outcome is Outcome.REFUSED:
            raise TransferRejected(self.refusal or self.action)

    def view(self) -> TableView:
        """The plan as a two-column table; in legacy mode one row per Burn wall on the path."""
        rows: list[list[Any]] = [
            ["dtype", str(self.dtype)], ["shape", str(list(self.shape))],
            ["move", f"{self.source} -> {self.target} ({self.path.value})"],
            ["policy", self.policy.value], ["outcome", self.outcome.value],
            ["action", self.action], ["arrives as", str(self.arrival_dtype)],
        ]
        rows += [["wall", w.line()] for w in self.walls]
        rows += [["refusal", self.refusal]] if self.refusal else []
        rows += [["note", n] for n in self.notes]
        bad = {i: "error" for i, r in enumerate(rows) if r[0] in ("outcome", "refusal")
               and not self.ok}
        return TableView("Transfer plan", ["what", "value"], rows, styles=bad)

    def to_dict(self) -> dict[str, Any]:
        return {"dtype": str(self.dtype), "shape": list(self.shape), "source": str(self.source),
                "target": str(self.target), "path": self.path.value, "policy": self.policy.value,
                "outcome": self.outcome.value, "ok": self.ok, "action": self.action,
                "arrival_dtype": str(self.arrival_dtype), "refusal": self.refusal,
                "hangs": self.hangs, "transport": self.transport.value,
                "walls": [w.to_dict() for w in self.walls], "notes": list(self.notes)}


def plan_transfer(dtype: AnyDType, shape: tuple[int, ...], source: Device, target: Device,
                  path: Path | None = None, policy: Policy | str = Policy.NATIVE,
                  transport: Transport | str = DEFAULT_TRANSPORT) -> TransferPlan:
    """Decide what moving a tensor of `dtype` from `source` to `target` does under `policy`,
    with cross-peer downloads over `transport` (Iroh, burn-remote's default, unless told).

    A forced `path` the topology cannot carry raises `DeviceError` (as the channel would)."""
    chosen = Policy.parse(policy)
    carrier = Transport.parse(transport)
    path = decide_path(source, target, path)
    # The fields every outcome shares; each branch below fills in outcome and action.
    base = TransferPlan(dtype=dtype, shape=tuple(shape), source=source, target=target, path=path,
                        policy=chosen, outcome=Outcome.MOVE, action="", arrival_dtype=dtype,
                        transport=carrier, notes=_path_notes(path))
    if path is Path.SAME:
        return replace(base, outcome=Outcome.NOOP,
                       action="same device: the input is returned, nothing is submitted")
    if not is_quantized_handle(dtype):
        return _plan_plain(base, chosen)
    if chosen is Policy.REJECT:
        return replace(base, outcome=Outcome.REFUSED, action="refused on the client",
                       refusal=rejection(dtype, source, target))
    if chosen is Policy.LEGACY:
        legacy = _plan_legacy(base, dtype, path)
        return replace(legacy, notes=(*legacy.notes, advertise(target, dtype).line()))
    scheme = getattr(dtype, "scheme", None)
    if not isinstance(scheme, QuantScheme):
        return replace(base, outcome=Outcome.MOVE, action=_ACTION[chosen, path],
                       notes=("a stand-in scheme: its layout is the extension's business",))
    try:
        arriving = arrival_scheme(scheme, target.profile, tuple(shape))
        if chosen is Policy.NATIVE and path in (Path.BYTES, Path.DISPATCH):
            check_arrival(target.profile, scheme)  # the target's q_from_data reads it
        elif chosen in (Policy.DEQUANTIZE, Policy.REQUANTIZE):
            stored_scheme(arriving, target.profile, tuple(shape))  # the target quantizes
    except RouterLabError as cannot:
        return replace(base, outcome=Outcome.REFUSED, action="refused on the client",
                       refusal=f"{dtype} from {source} to {target}: {cannot}")
    notes = base.notes if arriving == scheme else (
        *base.notes, f"repacked on arrival: {scheme} -> {arriving} ({target.profile} layout)")
    return replace(base, outcome=Outcome.MOVE, action=_ACTION[chosen, path], notes=notes,
                   arrival_dtype=QFloat(arriving))


def rejection(dtype: AnyDType, source: Device, target: Device) -> str:
    """Fix C's message (docs/transfers.md): dtype, scheme, both devices and the alternatives."""
    scheme = dtype.scheme if isinstance(dtype, QFloat) else dtype
    return (f"transfer of a quantized tensor refused (policy 'reject'): dtype {dtype}, scheme "
            f"{scheme}, from {source} to {target}; nothing was submitted. Alternatives: "
            "policy 'native' (exact move of values and scales), 'dequantize' (move floats, "
            "requantize with the same scales), 'requantize' (move floats, recalibrate), or "
            "dequantize the tensor yourself before moving it")


def _plan_plain(base: TransferPlan, policy: Policy) -> TransferPlan:
    kind = kind_of(base.dtype)
    path = base.path
    wall = None
    if policy is Policy.LEGACY and kind is Kind.UINT:
        wall = _UINT_WALLS[path](base.dtype)
    elif policy is Policy.LEGACY and path is Path.BRIDGE:
        wall = _REGISTER_WALL
    if wall is not None:
        return replace(base, outcome=Outcome.PANIC, action=f"panics: {wall.message}",
                       walls=(wall,), hangs=_hangs(path, base.transport),
                       notes=(*base.notes, *_waiting_notes(wall, path, base.transport)))
    return replace(base, outcome=Outcome.MOVE,
                   action=f"{kind.value} tensor moves by path {path.value}")


def _plan_legacy(base: TransferPlan, dtype: AnyDType, path: Path) -> TransferPlan:
    """Burn's walls per path, outermost first (docs/burn.md section 7)."""
    entry = Wall(ROUTER_LAYER, "BackendRouter::q_to_device", "not implemented", SRC_ROUTER)
    walls: tuple[Wall, ...]
    if path is Path.LOCAL:
        walls = (entry, _get_tensor_wall(dtype),
                 Wall("target session", "TensorInterpreter::register_tensor_to_device",
                      "not yet implemented: Local transfer of quantized tensors is not supported "
                      "yet", f"{SRC_INTERP}:124", reached=False))
    elif path is Path.BYTES:
        walls = (entry,
                 Wall("source session", "TensorInterpreter::read_tensor_async",
                      "not yet implemented", f"{SRC_INTERP}:2161"),
                 Wall("target session", "TensorInterpreter::register_tensor_data_id",
                      "not yet implemented", f"{SRC_INTERP}:176", reached=False))
    elif path is Path.DISPATCH:
        walls = (_DISPATCH_WALL,)
    else:
        walls = (entry, _BRIDGE_WALL)
    stop = next(w for w in walls if w.layer != ROUTER_LAYER)
    notes = (*base.notes, f"Burn's router entry fires first: {walls[0].line()}",
             *_waiting_notes(stop, path, base.transport))
    return replace(base, outcome=Outcome.PANIC, action=f"panics: {stop.message}",
                   walls=walls, hangs=_hangs(path, base.transport), notes=notes)


def _hangs(path: Path, transport: Transport) -> bool:
    """Whether the target waits forever once the source panicked: a same-peer `take` has no
    timeout (`crates/burn-remote/src/server/local_comm.rs:64-79`), nor has a WebSocket download
    (`crates/burn-communication/src/external_comm.rs:203-227`); an Iroh download gives up."""
    return path is Path.LOCAL or (path is Path.BYTES and transport is Transport.WEBSOCKET)


def _waiting_notes(stop: Wall, path: Path, transport: Transport) -> tuple[str, ...]:
    """What the target of a panicking transfer does: waits forever, or (Iroh) gives up."""
    if path not in _WAITING:
        return ()
    ends = f"the {stop.layer} panics and ends (no catch_unwind, {SRC_WORKER})"
    if _hangs(path, transport):
        return (f"{ends}; the target session would wait forever for the transfer",)
    return (f"{ends}; over Iroh the target's download gives up after 300 s, the error is "
            "logged and the target session goes on without the tensor, whose first use panics "
            f"'Should have handle for tensor …' ({SRC_IROH_GIVES_UP})",)


def _path_notes(path: Path) -> tuple[str, ...]:
    """What a path is in Burn, where RouterLab offers something Burn does not have."""
    if path is Path.DISPATCH:
        return ("RouterLab's own: Burn's Dispatch hands a move between two router (Remote) "
                "devices to the router's own to_device, the local or bytes path "
                f"({SRC_DISPATCH_SAME_BACKEND}); its into_data/from_data step runs only between "
                "two different Dispatch backends, such as a local Flex device and a remote one",)
    return ()


def _get_tensor_wall(dtype: AnyDType) -> Wall:
    """`get_tensor`'s `todo!` for any dtype that is not float, int or bool (same-peer path)."""
    return Wall("source session", "TensorInterpreter::get_tensor",
                f"not yet implemented: Local transfer of {burn_debug(dtype)} tensors is not "
                "supported yet", f"{SRC_INTERP}:98")


_BRIDGE_WALL = Wall("client (channel)", "change_client_backend (default, bridge)",
                    "not implemented", SRC_BRIDGE)
"""The default `change_client_backend`'s `unimplemented!()` for any dtype without a bridge arm."""

_REGISTER_WALL = Wall("client (channel)", "RemoteChannel::register_tensor",
                      REMOTE_REGISTER_PANIC, SRC_REGISTER)
"""Where the default `change_client_backend` ends for a plain tensor: it registers through the
channel (`crates/burn-router/src/channel/base.rs:61-63`), and `RemoteChannel` refuses."""

_DISPATCH_WALL = Wall("client (Dispatch)", "BackendRouter::q_into_data", "not implemented",
                      SRC_ROUTER_Q_INTO_DATA)
"""Dispatch moves a quantized tensor across backends with `q_into_data` then `q_from_data`
(`crates/burn-dispatch/src/ops/qtensor.rs:36-50`); on a router device the first is
`unimplemented!()`."""

_WAITING = (Path.LOCAL, Path.BYTES)
"""The paths whose target session waits for the source (a rendezvous or a download)."""


def _read_wall(dtype: AnyDType) -> Wall:
    return Wall("source session", "TensorInterpreter::read_tensor_async", "not implemented",
                f"{SRC_INTERP}:2163")


_UINT_WALLS = {
    Path.LOCAL: _get_tensor_wall,
    Path.BYTES: _read_wall,
    Path.DISPATCH: _read_wall,
    Path.BRIDGE: lambda dtype: _BRIDGE_WALL,
}

_ACTION = {
    (Policy.NATIVE, Path.LOCAL): "get_tensor -> q_to_device: values, scales, global copied "
                                 "bit-identical under a new id",
    (Policy.NATIVE, Path.BYTES): "q_into_data -> canonical bytes -> q_from_data on the target",
    (Policy.NATIVE, Path.BRIDGE): "change_backend_quantized: canonical bytes between backends",
    (Policy.DEQUANTIZE, Path.LOCAL): "dequantize on the source, move f32 + scales, quantize with "
                                     "the carried scales",
    (Policy.DEQUANTIZE, Path.BYTES): "dequantize, send f32 + scales as bytes, quantize with the "
                                     "carried scales",
    (Policy.DEQUANTIZE, Path.BRIDGE): "dequantize, f32 + scales across backends, quantize with "
                                      "the carried scales",
    (Policy.REQUANTIZE, Path.LOCAL): "dequantize on the source, move f32, recalibrate on the "
                                     "target",
    (Policy.REQUANTIZE, Path.BYTES): "dequantize, send f32 as bytes, recalibrate on the target",
    (Policy.REQUANTIZE, Path.BRIDGE): "dequantize, f32 across backends, recalibrate on the "
                                      "target",
    (Policy.NATIVE, Path.DISPATCH): "Dispatch: q_into_data to the client, q_from_data on the "
                                    "target backend",
    (Policy.DEQUANTIZE, Path.DISPATCH): "Dispatch: dequantize, f32 + scales through the client, "
                                        "quantize with the carried scales",
    (Policy.REQUANTIZE, Path.DISPATCH): "Dispatch: dequantize, f32 through the client, "
                                        "recalibrate on the target",
}
