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
  walls that stand behind the router entry (§14.2, item 2).
* `q_to_device` is `Runtime.q_to_device`, the router entry itself: in legacy mode it is Burn's
  `unimplemented!()`, the wall a real call meets first.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from routerlab.core.channel import to_device
from routerlab.core.client import RouterClient
from routerlab.core.data import TensorData
from routerlab.core.devices import Path
from routerlab.core.dtypes import QFloat, is_quantized
from routerlab.core.errors import BurnUnimplemented, DTypeError, QuantizationError
from routerlab.core.ir import TransferOptions
from routerlab.core.quant import Calibration, QuantScheme, parse_scheme
from routerlab.core.quant.layout import check_scale_count
from routerlab.core.quant.scheme import check_global_scale
from routerlab.core.server import Arrival
from routerlab.core.tensor import RouterTensor
from routerlab.core.transfer.guard import SRC_ROUTER, TransferPlan, plan_transfer
from routerlab.core.transfer.policies import DEFAULT_POLICY, Policy
from routerlab.core.transfer.qtensor import QuantizeParams, arrival_scheme, scheme_on

_cached_plan = lru_cache(maxsize=1024)(plan_transfer)
"""A plan depends only on its (hashable) arguments, and a frozen `TransferPlan` can be shared, so
a flow that moves the same kind of tensor again reuses it (docs/performance.md)."""


def choose_policy(tensor: RouterTensor, policy: Policy | str | None,
                  legacy: bool | None) -> Policy:
    """The policy of one transfer: the one given; else `legacy` when asked for (or when the
    source interpreter replays Burn); else `native`."""
    if policy is not None:
        return Policy.parse(policy)
    if legacy is None:
        legacy = tensor.client.session.interpreter.legacy
    return Policy.LEGACY if legacy else DEFAULT_POLICY


def plan(tensor: RouterTensor, target: RouterClient, path: Path | None,
         policy: Policy | str | None = None, legacy: bool | None = None) -> TransferPlan:
    """What moving `tensor` to `target` would do (nothing is consumed or submitted)."""
    tensor.check()
    chosen = choose_policy(tensor, policy, legacy)
    return _cached_plan(tensor.dtype, tensor.shape, tensor.device, target.device, path, chosen)


def move(tensor: RouterTensor, target: RouterClient, path: Path | None,
         policy: Policy | str | None, legacy: bool | None, arrival: Arrival) -> RouterTensor:
    """`Runtime.to_device`: plan, refuse or hand over to the channel, return the target tensor.

    A plain tensor ignores the quantized policies; `legacy` still switches Burn's arms on for it
    (its uint walls)."""
    if not is_quantized(tensor.dtype):
        chosen = None if policy is None else Policy.parse(policy)
        flag = True if chosen is Policy.LEGACY else legacy
        return to_device(tensor, target, path,
                         TransferOptions(flag, None if chosen is None else chosen.value), arrival)
    planned = plan(tensor, target, path, policy, legacy)
    planned.raise_if_refused()
    options = TransferOptions(planned.policy is Policy.LEGACY, planned.policy.value)
    moved = to_device(tensor, target, planned.path, options, arrival)
    if moved is not tensor:
        moved.dtype = planned.arrival_dtype
    return moved


def upload(client: RouterClient, data: TensorData) -> RouterTensor:
    """`Runtime.from_data`: register host data. Quantized data is checked on the client against
    the layout the device's profile holds (a layout it cannot hold is refused before anything is
    submitted), and the tensor takes the dtype it will be held in, as after a transfer."""
    if not isinstance(data.dtype, QFloat) or not isinstance(data.dtype.scheme, QuantScheme):
        return client.register_tensor_data(data)
    held = QFloat(arrival_scheme(data.dtype.scheme, client.device.profile, data.shape))
    tensor = client.register_tensor_data(data)
    tensor.dtype = held
    return tensor


def q_to_device(tensor: RouterTensor, target: RouterClient, path: Path | None,
                policy: Policy | str | None, legacy: bool | None,
                arrival: Arrival) -> RouterTensor:
    """The router's `QTensorOps::q_to_device`: Burn's `unimplemented!()` in legacy mode (on the
    client, before anything else), otherwise the same-device shortcut and `move`."""
    if not is_quantized(tensor.dtype):
        raise DTypeError(f"q_to_device moves quantized tensors, not {tensor.dtype}; use to_device")
    if choose_policy(tensor, policy, legacy) is Policy.LEGACY:
        tensor.check()
        raise BurnUnimplemented(SRC_ROUTER)
    return move(tensor, target, path, policy, legacy, arrival)


def quantize_request(tensor: RouterTensor, scheme: QuantScheme | str,
                     scales: Sequence[float] | None, global_scale: float | None,
                     calibration: Calibration | str) -> tuple[QuantScheme, QuantizeParams]:
    """Check a quantize on the client, before the input is consumed: the scheme the device's
    profile stores for this shape (Burn's builder fixes the output dtype the same way), and the
    given scales' count. Returns the `QuantizeOp` parameters."""
    tensor.check()
    if not tensor.dtype.is_float():
        raise DTypeError(f"quantize needs a float tensor, not {tensor.dtype}")
    parsed = parse_scheme(scheme) if isinstance(scheme, str) else scheme
    stored = scheme_on(parsed, tensor.device.profile, tensor.shape)
    method = Calibration.parse(calibration) if isinstance(calibration, str) else calibration
    if scales is None:
        if global_scale is not None:
            raise QuantizationError("a global scale goes with given scales; pass both or neither")
        return stored, QuantizeParams(None, None, method)
    given = tuple(float(s) for s in np.asarray(scales, dtype=np.float64).reshape(-1))
    check_scale_count(stored, tensor.shape, len(given))
    check_global_scale(stored, global_scale is not None)
    return stored, QuantizeParams(given, None if global_scale is None else float(global_scale),
                                  method)
