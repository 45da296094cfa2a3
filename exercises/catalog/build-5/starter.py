"""build-5: the guard and the five transfer policies, written by you. Read
crates/burn-router/src/interpreter.rs:88-127 and crates/burn-router/src/ops/qtensor.rs:34-39
(Burn 2c06be3), and docs/transfers.md for the three fixes.
The visible checks: which kinds the guard lets move under which policy; what native, dequantize
and requantize deliver and cost; reject refusing before any copy, legacy meeting Burn's todo!()."""

from typing import Any  # noqa: F401

import numpy as np  # noqa: F401

from routerlab.core.base.dtypes import DType, QFloat  # noqa: F401
from routerlab.core.base.errors import BurnPanic, TransferRejected  # noqa: F401
from routerlab.core.fix.qtensor import QPrimitive
from routerlab.core.quant import QuantizedTensor, dequantize, quantize, quantize_dynamic  # noqa: F401
from routerlab.core.quant.debug import scheme_debug  # noqa: F401 (Rust's Debug of a scheme)
from routerlab.core.quant.scale_dtype import to_f32  # noqa: F401 (stored scales as f32)
from routerlab.core.router.backend import Backend, Kind, Primitive, kind_of  # noqa: F401

POLICIES = ("native", "dequantize", "requantize", "reject", "legacy")


def can_move_to_device(dtype: Any, policy: str) -> bool:
    """Whether a tensor of `dtype` arrives on another device under `policy`. Checked: every
    kind under every policy."""
    # TODO: the quantized kind, and the one plain kind Burn's arms do not handle either.
    raise NotImplementedError("can_move_to_device")


def move_quantized(policy: str, source: Backend, target: Backend, q: QPrimitive) -> QPrimitive:
    """A same-peer move of `q` from `source`'s device to `target`'s under `policy`. Checked:
    what arrives (or the refusal, or Burn's panic text) and the copies each backend counts."""
    raise NotImplementedError("move_quantized")
