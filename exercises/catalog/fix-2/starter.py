# Imported for the TODOs: you will need most of these names.
import numpy as np  # noqa: F401

from routerlab.core.base.dtypes import DType, QFloat  # noqa: F401
from routerlab.core.fix.qtensor import QPrimitive
from routerlab.core.quant import QuantizedTensor  # noqa: F401
from routerlab.core.router.backend import Backend, HandleKind, Kind, Primitive  # noqa: F401
from routerlab.core.router.handles import HandleContainer
from routerlab.core.router.ir import TensorIr


def get_tensor(handles: HandleContainer, ir: TensorIr) -> HandleKind:
    """Source side: the arm Burn lacks, `DType::QFloat(_) => HandleKind::Quantized(..)`.

    A quantized tensor's `ir.dtype` is a `QFloat` (Burn's `DType::QFloat(scheme)`; there is no
    `DType.QFLOAT` member): `isinstance(ir.dtype, QFloat)`, with `QFloat` from
    `routerlab.core`, and `ir.dtype.scheme` is its scheme. It answers False to `is_float()`,
    `is_int()`, `is_uint()` and `is_bool()`, which is why Burn's dispatch never reaches it.
    """
    # TODO
    raise NotImplementedError("get_tensor")


def q_to_device(backend: Backend, q: QPrimitive) -> QPrimitive:
    """Target side: `B::q_to_device` onto `backend`'s device."""
    # TODO: the same-device shortcut; then copy the values, the scales and the global scale.
    raise NotImplementedError("q_to_device")
