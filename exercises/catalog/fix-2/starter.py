# Imported for the TODOs: you will need most of these names.
import numpy as np  # noqa: F401

from routerlab.core.base.dtypes import DType, QFloat  # noqa: F401
from routerlab.core.fix.qtensor import QPrimitive
from routerlab.core.quant import QuantizedTensor  # noqa: F401
from routerlab.core.router.backend import Backend, HandleKind, Kind, Primitive  # noqa: F401
from routerlab.core.router.handles import HandleContainer
from routerlab.core.router.ir import TensorIr


def get_tensor(handles: HandleContainer, ir: TensorIr) -> HandleKind:
    """Source side: the arm Burn lacks, `DType::QFloat(_) => HandleKind::Quantized(..)`
    (crates/burn-router/src/interpreter.rs:88-100).

    A quantized tensor's `ir.dtype` is a `QFloat` (Burn's `DType::QFloat(scheme)`; there is no
    `DType.QFLOAT` member). It answers False to `is_float()`, `is_int()`, `is_uint()` and
    `is_bool()`, which is why Burn's dispatch never reaches it.
    """
    # TODO
    raise NotImplementedError("get_tensor")


def q_to_device(backend: Backend, q: QPrimitive) -> QPrimitive:
    """Target side: `B::q_to_device` onto `backend`'s device
    (crates/burn-router/src/ops/qtensor.rs:34-39 is `unimplemented!()`; CubeCL's,
    crates/burn-cubecl/src/ops/qtensor.rs:275-277 with `q_into_data` below it, shows what a
    quantized tensor is made of: values, block scales, a global scale).

    The visible checks: a Q8S tensor moved natively, a two-level scheme, a unique and a shared
    tensor, the bytes a move counts, and a move onto the tensor's own device.
    """
    # TODO
    raise NotImplementedError("q_to_device")
