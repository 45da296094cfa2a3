# Imported for the TODOs: you will need most of these names.
import numpy as np  # noqa: F401

from routerlab.core.backend import Backend, HandleKind, Kind, Primitive  # noqa: F401
from routerlab.core.dtypes import DType  # noqa: F401
from routerlab.core.fix.qtensor import QPrimitive
from routerlab.core.handles import HandleContainer
from routerlab.core.ir import TensorIr
from routerlab.core.quant import QuantizedTensor  # noqa: F401


def get_tensor(handles: HandleContainer, ir: TensorIr) -> HandleKind:
    """Source side: the arm Burn lacks, `DType::QFloat(_) => HandleKind::Quantized(..)`."""
    # TODO
    raise NotImplementedError("get_tensor")


def q_to_device(backend: Backend, q: QPrimitive) -> QPrimitive:
    """Target side: `B::q_to_device` onto `backend`'s device."""
    # TODO: the same-device shortcut; then copy the values, the scales and the global scale.
    raise NotImplementedError("q_to_device")
