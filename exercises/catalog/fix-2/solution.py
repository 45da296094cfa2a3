"""fix-2 reference solution: Fix A's two arms, the native move of a quantized tensor."""

import numpy as np

from routerlab.core.backend import Backend, HandleKind, Kind, Primitive
from routerlab.core.dtypes import DType
from routerlab.core.fix.qtensor import QPrimitive
from routerlab.core.handles import HandleContainer
from routerlab.core.ir import TensorIr
from routerlab.core.quant import QuantizedTensor


def get_tensor(handles: HandleContainer, ir: TensorIr) -> HandleKind:
    """Source side: the arm Burn lacks, `DType::QFloat(_) => HandleKind::Quantized(..)`."""
    # The status rules are unchanged: ReadWrite moves the primitive out, ReadOnly leaves it.
    return HandleKind(Kind.QUANTIZED, handles.get_tensor_handle(ir))


def q_to_device(backend: Backend, q: QPrimitive) -> QPrimitive:
    """Target side: `B::q_to_device` onto `backend`'s device."""
    if q.device == backend.device:
        return q  # same device: Burn returns the input
    tensor = q.tensor
    dtype = DType.U32 if tensor.values.dtype == np.uint32 else DType.I8
    values = backend.to_device(Primitive(tensor.values, dtype, q.device))  # counted by to_device
    scales = np.array(tensor.scales, copy=True)  # the scales travel too (CubeCL, PR #5678)
    backend.count_copy(scales.nbytes + (0 if tensor.global_scale is None else 4))
    moved = QuantizedTensor(values.array, scales, tensor.global_scale, tensor.scheme,
                            tensor.shape, tensor.layout)
    return QPrimitive(moved, backend.device)
