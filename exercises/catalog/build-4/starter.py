"""build-4: the bytes path across peers, written by you. Read crates/burn-router/src/
interpreter.rs:162-178 and 2139-2176, and crates/burn-std/src/tensor/quantization.rs:198-360
(Burn 2c06be3) for the canonical layout; docs/burn.md section 14 draws it.
The visible checks: f32, i32 and bool tensors crossing as bytes; a quantized tensor crossing in
the canonical layout (values, scales in their own dtype, the global scale)."""

from typing import Any  # noqa: F401 (your HandleContainer's annotations)

import numpy as np  # noqa: F401 (bytes in and out)

from routerlab.core.base.data import TensorData
from routerlab.core.base.dtypes import DType, QFloat  # noqa: F401 (the kinds of data)
from routerlab.core.base.errors import BurnPanic  # noqa: F401 (your HandleContainer's panics)
from routerlab.core.fix.qtensor import QPrimitive
from routerlab.core.quant import QuantizedTensor, layout_of, params_shape  # noqa: F401
from routerlab.core.quant.scale_dtype import storage_dtype  # noqa: F401 (a scale's numpy dtype)
from routerlab.core.router.backend import Backend, HandleKind, Kind, Primitive, kind_of  # noqa: F401
from routerlab.core.router.ir import (  # noqa: F401 (your HandleContainer uses the statuses)
    READ_ONLY,
    READ_WRITE,
    TensorId,
    TensorIr,
    TensorStatus,
)

# Your HandleContainer (build-1) and TensorInterpreter (build-3) go here. Add to the interpreter:
#
#     def read_tensor(self, tensor: TensorIr) -> TensorData:
#         """interpreter.rs:2139-2176, with the arm Burn leaves as todo!(). Checked: every byte
#         in transit and the source registry after a shared and a last use."""
#
#     def register_tensor_data(self, id: TensorId, data: TensorData) -> None:
#         """interpreter.rs:162-178. Checked: what arrived, bit for bit, and the copies counted."""


def q_into_data(backend: Backend, q: QPrimitive) -> TensorData:
    """The canonical bytes of `q` (quantization.rs:198-360), one counted copy."""
    # TODO: values, scales, global, back to back.
    raise NotImplementedError("q_into_data")


def q_from_data(backend: Backend, data: TensorData) -> QPrimitive:
    """A QPrimitive on `backend`'s device from canonical bytes, one counted copy."""
    raise NotImplementedError("q_from_data")
