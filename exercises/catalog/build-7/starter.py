"""build-7: `to_device`, the glue, written by you on your own router. Read
crates/burn-router/src/ops/tensor.rs:89-94 (float_to_device: the router hands the move to its
channel), crates/burn-remote/src/client/channel.rs:45-62 (change_client_backend: same peer or
another), crates/burn-router/src/interpreter.rs:88-127 (the two halves of a same-peer move) and
162-178, 2139-2176 (the bytes path), all at Burn 2c06be3."""

from collections.abc import Callable  # noqa: F401 (your RouterClient's counter)
from typing import Any  # noqa: F401

import numpy as np  # noqa: F401

from routerlab.core.base.data import TensorData  # noqa: F401
from routerlab.core.base.dtypes import DType, QFloat  # noqa: F401
from routerlab.core.base.errors import BurnPanic, TransferRejected, UseAfterDropError  # noqa: F401
from routerlab.core.fix.qtensor import QPrimitive  # noqa: F401
from routerlab.core.quant import (  # noqa: F401 (the kernels and the canonical layout)
    QuantizedTensor,
    dequantize,
    layout_of,
    params_shape,
    quantize,
    quantize_dynamic,
)
from routerlab.core.quant.debug import scheme_debug  # noqa: F401
from routerlab.core.quant.scale_dtype import storage_dtype, to_f32  # noqa: F401
from routerlab.core.router.backend import Backend, HandleKind, Kind, Primitive, kind_of  # noqa: F401
from routerlab.core.router.ir import (  # noqa: F401 (the ops and irs your classes build)
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    DropOp,
    InitOp,
    OperationIr,
    RegisterDataOp,
    TensorId,
    TensorIr,
    TensorStatus,
)

# Your router goes here, as your earlier checkpoints left it: HandleContainer (build-1), the
# RouterTensor and its Count (build-2, as build-6 carried it), TensorInterpreter with its four
# arms (build-3) and read_tensor / register_tensor_data with q_into_data / q_from_data
# (build-4), can_move_to_device and move_quantized (build-5), RouterClient and
# float_from_data (build-6). The check builds one TensorInterpreter and one RouterClient per
# device from them; a client's session is `client.session`, its interpreter
# `client.session.interpreter`, and its device `client.session.device`.


def to_device(tensor: Any, target: Any, policy: str) -> Any:
    """Move `tensor` (your RouterTensor) to the device of `target` (your RouterClient) under
    `policy` and return the tensor the program holds afterwards.

    What must hold, in Burn's terms: which of the router's pieces decides before anything is
    consumed; what a move onto the device the tensor is already on does; how the status of the
    use (a shared clone or the last reference) reaches the source's registry; what crosses
    between two devices of one peer and what crosses between peers; and who names the new
    tensor.

    The visible checks (on your variant's numbers): the tour's flow on cpu:0, cpu:1 and
    peer2/cpu:0: an upload and a clone, an add, a quantize, a native move of a shared quantized
    tensor and then of its last reference to cpu:1, a move across peers, a requantize hop back
    to cpu:0, a dequantize hop of a clone to cpu:1, a move onto the device a tensor is on,
    reject and legacy, an f32 tensor moved under requantize, and the last drops;
    after each step the tensor, what its device stores (words, scales, global), every registry,
    every copy count and the counts of the clones kept. The hidden check runs the flow on
    seeded random tensors and schemes. Every check names the first function of RouterLab's
    router logic your code ran: it must be none."""
    # TODO: the move, from your own pieces.
    raise NotImplementedError("to_device")
