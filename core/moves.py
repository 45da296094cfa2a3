"""The client side of quantized tensors: check a quantize before submitting it, and move one:
choose the policy, consult the guard, then hand the tensor to the channel.

Burn's router entry for a quantized tensor is `BackendRouter::q_to_device`, and it is
`unimplemented!()` (`crates/burn-router/src/ops/qtensor.rs:34-39`), so nothing behind it is ever
reached. RouterLab's fix mirrors Fusion's `q_to_device` (`crates/burn-fusion/src/ops/
qtensor.rs:123-143`): the same device returns the input, anything else goes to the channel's
`change_client_backend` (`routerlab.core.channel.to_device`), which runs the path's server arms.

* `move` is `Runtime.to_device`: the policy is decided here, on the client, so `reject` and an
  impossible layout fail before anything is consumed or submitted, and `legacy` sends the
  transfer to the channel with Burn's arms switched on: it stops at the wall of its path (the
  source session's `get_tensor` / `read_tensor_async`, or the bridge's `unimplemented!()`), the
  walls that stand behind the router entry (docs/burn.md section 7).
* `q_to_device` is `Runtime.q_to_device`, the router entry itself: in legacy mode it is Burn's
  `unimplemented!()`, the wall a real call meets first.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from .channel import to_device
from .client import RouterClient
from .data import TensorData
from .devices import Device
from .dtypes import AnyDType, QFloat, is_quantized
from .errors import BurnUnimplemented, DTypeError, QuantizationError
from .fix.guard import SRC_ROUTER, TransferPlan, plan_transfer
from .fix.qtensor import QuantizeParams, arrival_scheme, scheme_on
from .policies import Policy
from .profiles import Profile
from .quant import Calibration, QuantScheme, check_quantizable, parse_scheme
from .quant.calibration import check_calibration
from .quant.ops import given_scales
from .request import DEFAULT_TRANSPORT, Arrival, TransferRequest
from .tensor import RouterTensor

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
         arrival: Arrival) -> RouterTensor:
    """`Runtime.to_device`: plan, refuse or hand over to the channel, return the target tensor.

    A plain tensor ignores the quantized policies; `legacy` still switches Burn's arms on for it
    (its uint walls)."""
    if not is_quantized(tensor.dtype):
        return to_device(tensor, target, request, arrival)
    planned = plan(tensor, target.device, request)
    planned.raise_if_refused()
    moved = to_device(tensor, target, request.but(policy=planned.policy, path=planned.path),
                      arrival)
    if moved is not tensor:
        moved.held = planned.arrival_dtype
    return moved


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
