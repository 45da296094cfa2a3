"""Moving a tensor, on the client: the router's entry, the guard's plan and the channel's paths.

`move` is the router's `*_to_device` (`crates/burn-router/src/ops/tensor.rs:89-94`) and, for a
quantized tensor, RouterLab's fix of `q_to_device`: Burn's router entry is `unimplemented!()`
(`crates/burn-router/src/ops/qtensor.rs:34-39`), so the fix mirrors Fusion's (`crates/burn-fusion/
src/ops/qtensor.rs:123-143`). It decides the path once: the guard's plan for a quantized tensor
(`core/fix/guard.py`, which refuses `reject` and an impossible layout here, before anything is
consumed or submitted), the topology for any other (`decide_path`). The same device returns the
input; anything else goes to the path's `change_client_backend`:

* `remote_change_backend` is `RemoteChannel`'s (`crates/burn-remote/src/client/channel.rs:45-62`,
  `client/runner.rs:406-487`), which does not look at the dtype: same peer (`local`), it submits
  an expose to the source session and a register to the target (a rendezvous); another peer
  (`bytes`), the source reads back to bytes and the target registers from them.
* `dispatch_change_backend` is Burn's Dispatch, a layer above the router: `into_data` to the
  client, `from_data` on the target.
* `bridge_change_backend` is the channel trait's *default* (`crates/burn-router/src/channel/
  base.rs:42-63`), forced only: take the handle in-process, convert it with the bridge, register
  it on the target. It dispatches on `is_float / is_int / is_bool`, so under `legacy` anything
  else hits `unimplemented!()` (base.rs:58), on the client.

In all of them a unique tensor is consumed ReadWrite (it *moves*: the source entry is gone and
the target holds a new id) and a shared one ReadOnly (it is *copied*: clones keep the old id).
Under `legacy` the same calls run with Burn's arms switched on, so a move stops at the wall of
its path (docs/burn.md section 7). `q_to_device` is the router entry itself: under `legacy` it is
Burn's `unimplemented!()`, the wall a real call meets first.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from .base.data import TensorData
from .base.devices import Device, Path, decide_path
from .base.dtypes import AnyDType, QFloat, is_quantized
from .base.errors import BurnPanic, BurnUnimplemented, DeviceError, DTypeError, QuantizationError
from .base.policies import Policy
from .base.profiles import Profile
from .base.request import DEFAULT_TRANSPORT, Arrival, TransferRequest
from .fix.guard import (
    REMOTE_REGISTER_PANIC,
    SRC_BRIDGE,
    SRC_REGISTER,
    SRC_ROUTER,
    SRC_ROUTER_Q_INTO_DATA,
    TransferPlan,
    plan_transfer,
)
from .fix.qtensor import QuantizeParams, arrival_scheme, scheme_on
from .quant import Calibration, QuantScheme, check_quantizable, parse_scheme
from .quant.calibration import check_calibration
from .quant.ops import given_scales
from .router.backend import Kind, kind_of
from .router.client import RouterClient
from .router.ir import NOT_INIT, ExposeLocalOp, ExposeRemoteOp, RegisterLocalOp, RegisterRemoteOp
from .router.session import Session
from .router.tensor import RouterTensor

_cached_plan = lru_cache(maxsize=1024)(plan_transfer)
"""A plan depends only on its (hashable) arguments, and a frozen `TransferPlan` can be shared, so
a flow that moves the same kind of tensor again reuses it (docs/performance.md)."""


def plan(tensor: RouterTensor, target: Device, request: TransferRequest) -> TransferPlan:
    """What moving `tensor` to `target` would do (nothing is consumed or submitted, and no
    device is created: a plan needs the target's name, not its session)."""
    tensor.check()
    return _cached_plan(tensor.held, tensor.shape, tensor.device, target, request.path,
                        request.decided_policy, request.transport or DEFAULT_TRANSPORT)


def move(tensor: RouterTensor, target: RouterClient, request: TransferRequest,
         arrival: Arrival = Arrival.SOURCE_FIRST) -> RouterTensor:
    """`Runtime.to_device`: decide the path (refusing here what the guard refuses), then the
    same device returns the input and any other runs the path's channel; returns the target
    tensor. A plain tensor ignores the quantized policies; `legacy` still switches Burn's arms
    on for it (its uint walls)."""
    tensor.check()
    planned = None
    if is_quantized(tensor.dtype):
        planned = plan(tensor, target.device, request)
        planned.raise_if_refused()
        path = planned.path
    else:
        path = decide_path(tensor.device, target.device, request.path)
    if path is Path.SAME:
        return tensor
    tensor.client.session.check_alive()
    target.session.check_alive()
    if path is Path.DISPATCH:
        moved = dispatch_change_backend(tensor, target, request)
    elif path is Path.BRIDGE:
        moved = bridge_change_backend(tensor, target, request)
    else:
        moved = remote_change_backend(tensor, target, path, request, arrival)
    if planned is not None:
        moved.held = planned.arrival_dtype
    return moved


def remote_change_backend(tensor: RouterTensor, target: RouterClient, path: Path,
                          request: TransferRequest, arrival: Arrival) -> RouterTensor:
    """`RemoteChannel::change_client_backend`: two tasks, one per session, then run them. The
    new tensor has the input's shape and dtype, so it has no new size to check."""
    source = tensor.client
    desc = tensor.into_ir()
    transfer_id = source.server.new_transfer(source.device, target.device)
    out = desc._replace(id=target.create_empty_handle(), status=NOT_INIT)
    if path is Path.LOCAL:
        source.register_op(ExposeLocalOp(desc, transfer_id, request))
        target.register_op(RegisterLocalOp(transfer_id, out, request))
    else:
        source.register_op(ExposeRemoteOp(desc, transfer_id, request))
        target.register_op(RegisterRemoteOp(transfer_id, out, request))
    first = target.session if arrival is Arrival.TARGET_FIRST else source.session
    source.server.run(first)
    return RouterTensor(out.id, desc.shape, desc.dtype, target)


def dispatch_change_backend(tensor: RouterTensor, target: RouterClient,
                            request: TransferRequest) -> RouterTensor:
    """Burn's Dispatch between two backends, a layer above the router
    (`crates/burn-dispatch/src/ops/tensor.rs`, `ops/qtensor.rs:36-50`): `into_data` on the
    source (a read back to the client), then `from_data` on the target. The client holds the
    bytes in between, which the router's own paths never do."""
    source = tensor.client
    legacy = request.decided_policy is Policy.LEGACY
    if legacy and kind_of(tensor.dtype) is Kind.QUANTIZED:  # Dispatch's q_into_data, on the client
        raise BurnUnimplemented(SRC_ROUTER_Q_INTO_DATA)
    data = source.read_tensor(tensor.into_ir(), request)
    moved = target.register_tensor_data(data, request)
    source.server.trace.record(
        "dispatch", str(target.device), moved.id, None, data.num_bytes,
        f"into_data on {source.device}, from_data on {target.device} (through the client)")
    return moved


def bridge_change_backend(tensor: RouterTensor, target: RouterClient,
                          request: TransferRequest) -> RouterTensor:
    """The default `change_client_backend`, run on the client (in-process only)."""
    source = tensor.client
    source_session, target_session = source.session, target.session
    if not isinstance(source_session, Session) or not isinstance(target_session, Session):
        raise DeviceError("path 'bridge' hands a handle from one interpreter to another inside "
                          "one process; a served peer's handles live in its own")
    source.sync()
    desc = tensor.into_ir()
    policy = request.decided_policy
    legacy = policy is Policy.LEGACY
    kind = kind_of(desc.dtype)
    handle = source_session.take_handle(desc)
    if legacy and kind in (Kind.UINT, Kind.QUANTIZED):
        raise BurnUnimplemented(SRC_BRIDGE)
    moved = target_session.convert_from(source_session, handle, kind, policy)
    if legacy:  # `Self::register_tensor` (base.rs:61-63), which a remote channel refuses
        raise BurnPanic(REMOTE_REGISTER_PANIC, SRC_REGISTER)
    new_id = target.create_empty_handle()
    target_session.handles.register(new_id, moved)
    source.server.trace.record("bridge", str(target.device), new_id, None,
                               getattr(moved, "nbytes", 0),
                               f"#{int(desc.id)} {desc.status} on {source.device} -> "
                               f"{target.device}")
    return RouterTensor(new_id, desc.shape, desc.dtype, target)


def upload(client: RouterClient, data: TensorData) -> RouterTensor:
    """`Runtime.from_data`: register host data. Quantized data is checked on the client against
    the layout the device's profile holds (a layout it cannot hold is refused before anything is
    submitted); the tensor keeps the data's dtype and holds the layout the profile reads."""
    if not isinstance(data.dtype, QFloat) or not isinstance(data.dtype.scheme, QuantScheme):
        return client.register_tensor_data(data)
    held = QFloat(arrival_scheme(data.dtype.scheme, client.device.profile, data.shape))
    tensor = client.register_tensor_data(data)
    tensor.held = held
    return tensor


def q_to_device(tensor: RouterTensor, target: RouterClient, request: TransferRequest,
                arrival: Arrival) -> RouterTensor:
    """The router's `QTensorOps::q_to_device`: Burn's `unimplemented!()` under `legacy` (on the
    client, before anything else), otherwise the same-device shortcut and `move`."""
    if not is_quantized(tensor.dtype):
        raise DTypeError(f"q_to_device moves quantized tensors, not {tensor.dtype}; use to_device")
    if request.decided_policy is Policy.LEGACY:
        tensor.check()
        raise BurnUnimplemented(SRC_ROUTER)
    return move(tensor, target, request, arrival)


def check_quantize(dtype: AnyDType, shape: tuple[int, ...], profile: Profile,
                   scheme: QuantScheme | str, scales: Sequence[float] | None = None,
                   global_scale: float | None = None,
                   calibration: Calibration | str = Calibration.MINMAX
                   ) -> tuple[QuantScheme, QuantScheme, QuantizeParams]:
    """Check a quantize on the client, before the input is consumed, and return the scheme
    asked for (resolved against the profile: the op's output dtype, as Burn's builder sets it),
    the scheme the profile stores for this shape (what the device will hold) and the
    `QuantizeOp` parameters, each refused here if the quantizer would refuse it."""
    if isinstance(dtype, QFloat) or not dtype.is_float():
        raise DTypeError(f"quantize needs a float tensor, not {dtype}")
    asked = (parse_scheme(scheme) if isinstance(scheme, str) else scheme).resolve(profile)
    stored = scheme_on(asked, profile, shape)
    check_quantizable(stored)
    method = Calibration.parse(calibration)
    if scales is None:
        if global_scale is not None:
            raise QuantizationError("a global scale goes with given scales; pass both or neither")
        check_calibration(stored, shape, method, flex=profile is Profile.FLEX)
        return asked, stored, QuantizeParams(None, None, method)
    given_scales(stored, shape, np.asarray(scales, dtype=np.float64), global_scale)
    return asked, stored, QuantizeParams(
        tuple(float(s) for s in np.asarray(scales, np.float64).ravel()),
        None if global_scale is None else float(global_scale), method)
