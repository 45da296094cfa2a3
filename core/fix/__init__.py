"""RouterLab's fix for quantized tensors in the router, at every layer Burn left empty.

Burn 2c06be3 cannot move a quantized tensor through its router
(`crates/burn-router/src/ops/qtensor.rs:34-39`, `crates/burn-router/src/interpreter.rs:98,124`);
this package is the fix, with the choice of *how* left to the learner:

- `policies`: the five transfer policies (`native`, `dequantize`, `requantize`, `reject`,
  `legacy`), a contract shared by the CLI, scenarios and notebooks;
- `guard`: `is_quantized_handle`, `can_move_to_device` and `plan_transfer` (what a transfer would
  do, before anything is submitted);
- `qtensor`: the backend's quantized ops (`quantize`, `dequantize`, `q_to_device`,
  `q_into_data`, `q_from_data`, `change_backend_quantized`) and the arrival check;
- `arms`: the interpreter's quantized arms (`QuantizedTransfers`), which every `Runtime` builds
  and passes to its interpreters unless it is given another extension;
- `advertised`: what a router device claims in `dtype_usage`, beside what it can do.

The client side of a move (`Runtime.to_device`) is `routerlab.core.moves`; what each policy costs
is measured by `routerlab.teaching`.
"""

from ..base.policies import (
    DEFAULT_POLICY,
    POLICY_NAMES,
    Policy,
    UnknownPolicyError,
)
from .advertised import SOURCES, Advertisement, advertise, dtype_usage
from .arms import QuantizedTransfers, record_arrival
from .guard import (
    Outcome,
    TransferPlan,
    Wall,
    can_move_to_device,
    is_quantized_handle,
    plan_transfer,
)
from .qtensor import QPrimitive, QuantizeParams, q_to_device

__all__ = [
    "DEFAULT_POLICY", "SOURCES", "Advertisement", "Outcome", "POLICY_NAMES", "Policy",
    "QPrimitive", "QuantizeParams", "QuantizedTransfers", "TransferPlan", "UnknownPolicyError",
    "Wall", "advertise", "can_move_to_device", "dtype_usage", "is_quantized_handle",
    "plan_transfer", "q_to_device", "record_arrival",
]
