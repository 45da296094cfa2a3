"""The RouterLab model of Burn's router backend.

Knows nothing of Typer, rich, IPython or CuPy at import time (CuPy is looked for lazily, on the
first use of a `cuda:N` device). The public names are re-exported here.
Names are loaded on first use (PEP 562 `__getattr__`), so that importing one submodule, such as
`routerlab.core.quant.ops` for `routerlab quantize`, does not import the whole model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from routerlab.core.transfer import (
        Policy,
        TransferPlan,
        can_move_to_device,
        is_quantized_handle,
        plan_transfer,
    )
    from routerlab.core.view import TableView

_LAZY: dict[str, str] = {
    "AddOp": "routerlab.core.ir",
    "AnyDType": "routerlab.core.dtypes",
    "Arrival": "routerlab.core.server",
    "Backend": "routerlab.core.backend",
    "BurnPanic": "routerlab.core.errors",
    "BurnTodo": "routerlab.core.errors",
    "BurnUnimplemented": "routerlab.core.errors",
    "CastOp": "routerlab.core.ir",
    "DType": "routerlab.core.dtypes",
    "DTypeError": "routerlab.core.errors",
    "DeadlockError": "routerlab.core.errors",
    "DequantizeOp": "routerlab.core.ir",
    "Device": "routerlab.core.devices",
    "DeviceError": "routerlab.core.errors",
    "DropOp": "routerlab.core.ir",
    "ExposeLocalOp": "routerlab.core.ir",
    "ExposeRemoteOp": "routerlab.core.ir",
    "ExtensionMissingError": "routerlab.core.errors",
    "GpuUnavailableError": "routerlab.core.errors",
    "HandleContainer": "routerlab.core.handles",
    "HandleKind": "routerlab.core.backend",
    "InitOp": "routerlab.core.ir",
    "Journal": "routerlab.core.handles",
    "Kind": "routerlab.core.backend",
    "MatmulOp": "routerlab.core.ir",
    "MissingHandleError": "routerlab.core.errors",
    "MulOp": "routerlab.core.ir",
    "NOT_INIT": "routerlab.core.ir",
    "OperationIr": "routerlab.core.ir",
    "Path": "routerlab.core.devices",
    "Policy": "routerlab.core.transfer",
    "Primitive": "routerlab.core.backend",
    "Profile": "routerlab.core.profiles",
    "QFloat": "routerlab.core.dtypes",
    "QuantizeOp": "routerlab.core.ir",
    "QuantizedExtension": "routerlab.core.interpreter",
    "READ_ONLY": "routerlab.core.ir",
    "READ_WRITE": "routerlab.core.ir",
    "ReadOp": "routerlab.core.ir",
    "RegisterDataOp": "routerlab.core.ir",
    "RegisterLocalOp": "routerlab.core.ir",
    "RegisterRemoteOp": "routerlab.core.ir",
    "ReshapeOp": "routerlab.core.ir",
    "RouterLabError": "routerlab.core.errors",
    "RouterTensor": "routerlab.core.tensor",
    "Runtime": "routerlab.core.runtime",
    "ScenarioError": "routerlab.core.errors",
    "SessionEnded": "routerlab.core.errors",
    "ShapeError": "routerlab.core.errors",
    "SwapDimsOp": "routerlab.core.ir",
    "TableView": "routerlab.core.view",
    "TensorData": "routerlab.core.data",
    "TensorId": "routerlab.core.ir",
    "TensorInterpreter": "routerlab.core.interpreter",
    "TensorIr": "routerlab.core.ir",
    "TensorStatus": "routerlab.core.ir",
    "Trace": "routerlab.core.trace",
    "TraceEvent": "routerlab.core.trace",
    "TransferOptions": "routerlab.core.ir",
    "TransferPlan": "routerlab.core.transfer",
    "UnknownTensorError": "routerlab.core.errors",
    "UseAfterDropError": "routerlab.core.errors",
    "automatic_path": "routerlab.core.devices",
    "can_move_to_device": "routerlab.core.transfer",
    "install_quantized_extension": "routerlab.core.interpreter",
    "is_quantized": "routerlab.core.dtypes",
    "is_quantized_handle": "routerlab.core.transfer",
    "make_backend": "routerlab.core.backend",
    "parse_device": "routerlab.core.devices",
    "plan_transfer": "routerlab.core.transfer",
}
"""Each public name and the submodule that defines it."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'routerlab.core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
