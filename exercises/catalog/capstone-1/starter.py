# Imported for the TODO and for the pieces you bring: you will need most of these names.
import math  # noqa: F401 (round_up)
import struct  # noqa: F401 (round_up)
from typing import Any  # noqa: F401

import numpy as np  # noqa: F401

from routerlab.core.backend import Backend, HandleKind, Kind, Primitive, kind_of  # noqa: F401
from routerlab.core.dtypes import DType  # noqa: F401
from routerlab.core.errors import BurnPanic, MissingHandleError  # noqa: F401
from routerlab.core.fix.qtensor import QPrimitive
from routerlab.core.handles import HandleContainer
from routerlab.core.ir import READ_ONLY, READ_WRITE, TensorId, TensorIr, TensorStatus  # noqa: F401
from routerlab.core.quant import QuantizedTensor  # noqa: F401

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
