"""Quantized tensors in the router: creating them, moving them, and what each way costs.

Burn 2c06be3 cannot move a quantized tensor through its router (docs/burn.md, 7); this package is
RouterLab's fix at every layer, with the choice of *how* left to the learner:

- `policies`: the five transfer policies (`native`, `dequantize`, `requantize`, `reject`,
  `legacy`), a contract shared by the CLI, scenarios and notebooks;
- `guard`: `is_quantized_handle`, `can_move_to_device` and `plan_transfer` (what a transfer would
  do, before anything is submitted); `flow` checks a whole scenario;
- `qtensor`: the backend's quantized ops (`quantize`, `dequantize`, `q_to_device`,
  `q_into_data`, `q_from_data`, `change_backend_quantized`) and the arrival check;
- `quantized`: the interpreter's quantized arms, installed by default in every `Runtime`;
- `router`: the client side (`Runtime.quantize`, `Runtime.to_device` for quantized tensors);
- `measure` / `compare`: what each policy really costs, hop by hop, side by side.

Only the light modules are imported here; `measure`, `compare` and `flow` build runtimes and are
imported on their own.
"""

from routerlab.core.transfer.guard import (
    Outcome,
    TransferPlan,
    Wall,
    can_move_to_device,
    is_quantized_handle,
    plan_transfer,
)
from routerlab.core.transfer.policies import (
    DEFAULT_POLICY,
    POLICY_NAMES,
    Policy,
    UnknownPolicyError,
)
from routerlab.core.transfer.qtensor import QPrimitive, QuantizeParams

__all__ = [
    "DEFAULT_POLICY", "Outcome", "POLICY_NAMES", "Policy", "QPrimitive", "QuantizeParams",
    "TransferPlan", "UnknownPolicyError", "Wall", "can_move_to_device", "is_quantized_handle",
    "plan_transfer",
]
