"""build-8: the server, written by you: the session that runs a device's tasks in order and
the interpreter's arms that execute them. Read crates/burn-remote/src/server/worker.rs:9-18,
136-180 (one FIFO per session, run in submission order; what a panic and a close end) and
192-330 (each task); crates/burn-router/src/interpreter.rs:216-235 (register_op, Reshape,
SwapDims), 356-360 (Cast), 767-770 (Add, through ops/binary.rs:3-13), 1367-1369 (Matmul),
1390-1391 (Quantize and Dequantize: todo!()), 2107-2120 (Custom, Init, Drop);
crates/burn-router/src/tensor.rs:62-64 (into_data), crates/burn-router/src/client/
base.rs:42-44 and crates/burn-remote/src/client/runner.rs:32-52 (read_tensor_async, sync), all
at Burn 2c06be3."""

from collections import deque  # noqa: F401 (a FIFO)
from collections.abc import Callable  # noqa: F401 (your RouterClient's counter)
from typing import Any  # noqa: F401

import numpy as np  # noqa: F401

from routerlab.core.base.data import TensorData  # noqa: F401
from routerlab.core.base.dtypes import DType, QFloat  # noqa: F401
from routerlab.core.base.errors import (  # noqa: F401
    BurnPanic,
    SessionEnded,
    TransferRejected,
    UseAfterDropError,
)
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
from routerlab.core.router.custom_op import CustomOp  # noqa: F401 (Burn's OperationIr::Custom)
from routerlab.core.router.ir import (  # noqa: F401 (the ops and irs your classes build and run)
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    AddOp,
    CastOp,
    DequantizeOp,
    DropOp,
    InitOp,
    MatmulOp,
    MulOp,
    OperationIr,
    QuantizeOp,
    ReadOp,
    RegisterDataOp,
    ReshapeOp,
    SwapDimsOp,
    TensorId,
    TensorIr,
    TensorStatus,
)

# Your router goes here, as build-7 left it: HandleContainer, TensorInterpreter (with
# q_into_data / q_from_data), can_move_to_device, move_quantized, Count, RouterTensor,
# RouterClient, float_from_data and to_device. Then add to it:
#
# - TensorInterpreter.register_op(self, op: OperationIr) -> None (interpreter.rs:216): the arms
#   for InitOp, DropOp, AddOp, MulOp, MatmulOp, ReshapeOp, SwapDimsOp, CastOp, QuantizeOp,
#   DequantizeOp and CustomOp (this server registers no custom op); a QuantizeOp's `params`
#   hold given scales (crates/burn-ir/src/operation.rs:1526-1541) or are None (calibrate). The
#   visible checks: what each device's registry holds after its session ran, word for word.
# - RouterTensor.into_data(self) -> TensorData (tensor.rs:62-64) and
#   RouterClient.read_tensor(self, tensor: TensorIr) -> TensorData (runner.rs:32-52), and
#   RouterClient.sync(self) -> None (base.rs:44). Checked: the bytes each read returns and the
#   registries after it and after a sync.


class Session:
    """One device's worker (worker.rs:9-18, 136-147), built by the check for each device as
    `Session(device, your_interpreter)`; your RouterClient submits to it."""

    def __init__(self, device: Any, interpreter: Any) -> None:
        # TODO: the device, the interpreter and the FIFO.
        raise NotImplementedError("Session")

    def check_alive(self) -> None:
        """Checked: a submit to a session that panicked is refused with SessionEnded."""
        raise NotImplementedError("check_alive")

    def submit(self, op: OperationIr, answer: Any = None) -> None:
        """Checked: what each registry holds before the session runs."""
        raise NotImplementedError("submit")

    def run(self) -> None:
        """Checked: the registries after a run, and after a task that panics: Burn's text, the
        tasks behind it, the handles the session held, the other device's session."""
        raise NotImplementedError("run")

    def close(self) -> None:
        """Checked: the registry after the last client went away, and a submit after it."""
        raise NotImplementedError("close")
