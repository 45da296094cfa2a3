# Imported for the TODO and for the pieces you bring: you will need most of these names.
import math  # noqa: F401 (round_up)
import struct
from typing import Any  # noqa: F401

import numpy as np  # noqa: F401

from routerlab.core.base.dtypes import DType  # noqa: F401
from routerlab.core.base.errors import BurnPanic, MissingHandleError  # noqa: F401
from routerlab.core.fix.qtensor import QPrimitive
from routerlab.core.quant import QuantizedTensor  # noqa: F401
from routerlab.core.router.backend import Backend, HandleKind, Kind, Primitive, kind_of  # noqa: F401
from routerlab.core.router.handles import HandleContainer
from routerlab.core.router.ir import READ_ONLY, READ_WRITE, TensorId, TensorIr, TensorStatus  # noqa: F401

# quant-2's bit helpers, as its starter gives them; the constants your round_up reads from Burn's
# source (each dtype's max, mantissa digits and subnormal grid) come with it.


def f32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def f32_from_bits(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


# Your earlier pieces go below this line: get_handle (registry-1), status_for (registry-3),
# round_up (quant-2, with its helpers), pack_u32 (quant-3), is_quantized_handle and
# can_move_to_device (fix-1), get_tensor (fix-2). Each one you leave out runs as the model's,
# and the first check lists it.


def register_quantized(backend: Backend, handles: HandleContainer, tensor_id: TensorId,
                       q: QPrimitive) -> None:
    """Burn's missing arm, `HandleKind::Quantized(q) => ...` (interpreter.rs:123-125): put `q`
    on `backend`'s device and register it under `tensor_id`."""
    # TODO: the same-device shortcut; otherwise values, scales, global scale and scheme arrive.
    raise NotImplementedError("register_quantized")
