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
from routerlab.core.fix import (
    Policy,
    TransferPlan,
    can_move_to_device,
    is_quantized_handle,
    plan_transfer,
)
from routerlab.core.handles import HandleContainer, Journal
from routerlab.core.interpreter import Arm, QuantizedExtension, TensorInterpreter
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
)
from routerlab.core.profiles import Profile
from routerlab.core.request import Arrival, TransferRequest, Transport
from routerlab.core.runtime import Runtime
from routerlab.core.tensor import RouterTensor
from routerlab.core.trace import Trace, TraceEvent
from routerlab.core.view import TableView

__all__ = [
    "AddOp", "AnyDType", "Arm", "Arrival", "automatic_path", "Backend", "BurnPanic", "BurnTodo",
    "BurnUnimplemented", "can_move_to_device", "CastOp", "DeadlockError", "DequantizeOp",
    "Device", "DeviceError", "DropOp", "DType", "DTypeError", "ExposeLocalOp", "ExposeRemoteOp",
    "ExtensionMissingError", "GpuUnavailableError", "HandleContainer", "HandleKind", "InitOp",
    "is_quantized", "is_quantized_handle", "Journal", "Kind", "make_backend", "MatmulOp",
    "MissingHandleError", "MulOp", "NOT_INIT", "OperationIr", "parse_device", "Path",
    "plan_transfer", "Policy", "Primitive", "Profile", "QFloat", "QuantizedExtension",
    "QuantizeOp", "READ_ONLY", "READ_WRITE", "ReadOp", "RegisterDataOp", "RegisterLocalOp",
    "RegisterRemoteOp", "ReshapeOp", "RouterLabError", "RouterTensor", "Runtime",
    "ScenarioError", "SessionEnded", "ShapeError", "SwapDimsOp", "TableView", "TensorData",
    "TensorId", "TensorInterpreter", "TensorIr", "TensorStatus", "Trace", "TraceEvent",
    "TransferPlan", "TransferRequest", "Transport", "UnknownTensorError", "UseAfterDropError",
]


_REMOVED = {
    "install_quantized_extension": "extensions belong to a Runtime: Runtime(quantized=...)",
    "TransferOptions": "a transfer is one TransferRequest: TransferRequest.of(device, policy=...)",
}


def __getattr__(name: str) -> object:
    """Names removed in 0.2 fail with what replaces them, not a bare ImportError."""
    if name in _REMOVED:
        raise ImportError(f"routerlab.core.{name} was removed in RouterLab 0.2; {_REMOVED[name]}")
    raise AttributeError(f"module 'routerlab.core' has no attribute {name!r}")
