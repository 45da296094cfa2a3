"""The RouterLab model of Burn's router backend.

Knows nothing of Typer, rich, IPython or CuPy at import time (CuPy is looked for lazily, on the
first use of a `cuda:N` device). The public names are re-exported here.
"""

from routerlab.core.backend import Backend, HandleKind, Kind, Primitive, make_backend
from routerlab.core.data import TensorData
from routerlab.core.devices import Device, Path, automatic_path, parse_device
from routerlab.core.dtypes import AnyDType, DType, QFloat, is_quantized
from routerlab.core.errors import (
    BurnPanic,
    BurnTodo,
    BurnUnimplemented,
    DeadlockError,
    DeviceError,
    DTypeError,
    ExtensionMissingError,
    GpuUnavailableError,
    MissingHandleError,
    RouterLabError,
    ScenarioError,
    SessionEnded,
    ShapeError,
    UnknownTensorError,
    UseAfterDropError,
)
from routerlab.core.handles import HandleContainer, Journal
from routerlab.core.interpreter import (
    QuantizedExtension,
    TensorInterpreter,
    install_quantized_extension,
)
from routerlab.core.ir import (
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    AddOp,
    CastOp,
    DequantizeOp,
    DropOp,
    ExposeLocalOp,
    ExposeRemoteOp,
    InitOp,
    MatmulOp,
    MulOp,
    OperationIr,
    QuantizeOp,
    ReadOp,
    RegisterDataOp,
    RegisterLocalOp,
    RegisterRemoteOp,
    ReshapeOp,
    SwapDimsOp,
    TensorId,
    TensorIr,
    TensorStatus,
    TransferOptions,
)
from routerlab.core.profiles import Profile
from routerlab.core.runtime import Runtime
from routerlab.core.server import Arrival
from routerlab.core.tensor import RouterTensor
from routerlab.core.trace import Trace, TraceEvent
from routerlab.core.fix import (
    Policy,
    TransferPlan,
    can_move_to_device,
    is_quantized_handle,
    plan_transfer,
)
from routerlab.core.view import TableView

__all__ = [
    "AddOp", "AnyDType", "Arrival", "Backend", "BurnPanic", "BurnTodo", "BurnUnimplemented",
    "CastOp", "DType", "DTypeError", "DeadlockError", "DequantizeOp", "Device", "DeviceError",
    "DropOp", "ExposeLocalOp", "ExposeRemoteOp", "ExtensionMissingError", "GpuUnavailableError",
    "HandleContainer", "HandleKind", "InitOp", "Journal", "Kind", "MatmulOp",
    "MissingHandleError", "MulOp", "NOT_INIT", "OperationIr", "Path", "Policy", "Primitive",
    "Profile",
    "QFloat", "QuantizeOp", "QuantizedExtension", "READ_ONLY", "READ_WRITE", "ReadOp",
    "RegisterDataOp", "RegisterLocalOp", "RegisterRemoteOp", "ReshapeOp", "RouterLabError",
    "RouterTensor", "Runtime", "ScenarioError", "SessionEnded", "ShapeError", "SwapDimsOp",
    "TableView", "TensorData", "TensorId", "TensorInterpreter", "TensorIr", "TensorStatus",
    "Trace", "TraceEvent", "TransferOptions", "TransferPlan", "UnknownTensorError",
    "UseAfterDropError", "automatic_path", "can_move_to_device", "install_quantized_extension",
    "is_quantized", "is_quantized_handle", "make_backend", "parse_device", "plan_transfer",
]
