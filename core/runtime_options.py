"""`RuntimeOptions`: everything a `Runtime` is built with besides its devices, as one value.

`Runtime(devices, policy="legacy", fusion=True)` still takes each option by name; the options
are declared here, with what each one means, and `Runtime.options` holds them. `OptionNames`
repeats their names and types for the keyword arguments, so that mypy and an editor check
`Runtime(devices, polcy=...)` too; a test keeps the two lists equal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from .base.devices import Device
from .base.errors import RouterLabError
from .base.policies import Policy
from .base.request import DEFAULT_TRANSPORT, Arrival, Transport
from .router.backend import Backend, make_backend
from .router.custom_op import CustomHandler
from .router.interpreter import Arm, QuantizedExtension, TensorInterpreter
from .router.server import Server

if TYPE_CHECKING:
    from .base.trace import Trace
    from .router.handles import Journal


@dataclass(frozen=True)
class RuntimeOptions:
    """How a runtime replays Burn, which extensions its interpreters get, and where its peers
    are (see each field)."""

    policy: Policy | str | None = None
    """What a transfer follows when it names none (`native` by default; `legacy` replays Burn
    2c06be3's uint/QFloat arms everywhere)."""
    legacy: bool | None = None
    """The older spelling of `policy="legacy"` (False: `native`)."""
    quantized: QuantizedExtension | Literal[False] | None = None
    """The `QFloat` arms every interpreter gets. None: RouterLab's fix (`QuantizedTransfers`);
    False: none, so the `QFloat` arms raise `ExtensionMissingError`."""
    arms: Mapping[type, Arm] | None = None
    """Extra interpreter arms, keyed by op class."""
    custom_ops: Mapping[str, CustomHandler] | None = None
    """The server's custom-op handlers by id (`CustomOpRegistry`, core/router/custom_op.py),
    which every in-process interpreter gets; a custom op with no handler panics there."""
    interpreter: type[TensorInterpreter] = TensorInterpreter
    """The class of every device's interpreter (a subclass that overrides an arm is how an
    exercise plugs a student's function in)."""
    backends: Callable[[Device], Backend] = make_backend
    """Makes each device's backend (a rehearsal runs `cuda:N` on a numpy twin)."""
    fusion: bool = False
    """The client is built with Burn's `fusion` feature, which decides where a legacy quantize
    stops (`Runtime.quantize`)."""
    cubecl_legacy: bool = False
    """CubeCL devices move quantized tensors as CubeCL's own `q_to_device` did at the pin,
    leaving the scales behind (`crates/burn-cubecl/src/tensor/base.rs:174-192`)."""
    transport: Transport | str = DEFAULT_TRANSPORT
    """How cross-peer downloads travel unless a transfer names one (Iroh, as burn-remote
    documents it, `crates/burn-remote/src/lib.rs:3,44`)."""
    arrival: Arrival | str = Arrival.SOURCE_FIRST
    """Which side of a same-peer rendezvous runs first."""
    peers: Mapping[str, str] | None = None
    """Served peers (`{"peer2": "ws://127.0.0.1:3001"}`, each a `routerlab serve` process):
    their devices' sessions run there, with the peer's own interpreter and quantized extension
    (docs/remote.md); close the runtime (`close()` or `with`) to end them."""
    server: Callable[[Trace, Journal], Server] = Server
    """Makes the server side (a served peer's downloads across processes)."""
    wire: bool = False
    """Each client also replays burn-remote's outgoing batch (core/wire/queue.py): the trace
    records every batch that leaves a client, and why (`simulate --trace`)."""
    fast: bool = True
    """Hot steps take the fast path (`core/fastpath.py`), proven equal to the readable one;
    False runs every step through the layers (what the equality tests compare against)."""

    @property
    def stock(self) -> bool:
        """Whether every device gets the stock interpreter and backend (no subclass plugged in,
        no backend maker of a test's or a rehearsal's): the fast path's condition."""
        return self.interpreter is TensorInterpreter and self.backends is make_backend

    def but(self, **given: Any) -> RuntimeOptions:
        """These options with some changed by name; an unknown name is refused with the list."""
        unknown = sorted(set(given) - {f.name for f in fields(self)})
        if unknown:
            names = ", ".join(f.name for f in fields(self))
            raise RouterLabError(f"Runtime has no option {unknown[0]!r}; its options: {names}")
        return replace(self, **given) if given else self


class OptionNames(TypedDict, total=False):
    """`RuntimeOptions`' fields as `Runtime`'s keyword arguments (`**given:
    Unpack[OptionNames]`), each documented on the field of the same name above."""

    policy: Policy | str | None
    legacy: bool | None
    quantized: QuantizedExtension | Literal[False] | None
    arms: Mapping[type, Arm] | None
    custom_ops: Mapping[str, CustomHandler] | None
    interpreter: type[TensorInterpreter]
    backends: Callable[[Device], Backend]
    fusion: bool
    cubecl_legacy: bool
    transport: Transport | str
    arrival: Arrival | str
    peers: Mapping[str, str] | None
    server: Callable[[Trace, Journal], Server]
    wire: bool
    fast: bool
