"""The RouterLab model of Burn's router backend: the public API the faces use.

Knows nothing of Typer, rich, IPython or CuPy (CuPy is looked for on the first use of a `cuda:N`
device). Every public name is loaded on first use (PEP 562), so `routerlab --help`, which imports
nothing of the model, and a command that needs one module stay fast; the faces import the model
through these names and the packages `routerlab.core.quant` and `routerlab.core.scenario` only
(tests/present/test_layers.py).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .backend import (
        Backend,
        HandleKind,
        Kind,
        Primitive,
        kind_of,
        make_backend,
    )
    from .data import TensorData
    from .deployment import Deployment
    from .devices import (
        Device,
        DeviceLike,
        Path,
        automatic_path,
        parse_device,
    )
    from .dtypes import (
        AnyDType,
        DType,
        QFloat,
        is_quantized,
    )
    from .errors import (
        BurnPanic,
        BurnTodo,
        BurnUnimplemented,
        DeadlockError,
        DeviceError,
        DTypeError,
        ExtensionMissingError,
        GpuUnavailableError,
        LimitError,
        MissingHandleError,
        QuantizationError,
        RouterLabError,
        ScenarioError,
        SessionEnded,
        ShapeError,
        TransferRejected,
        UnknownTensorError,
        UseAfterDropError,
    )
    from .fix import (
        TransferPlan,
        can_move_to_device,
        is_quantized_handle,
        plan_transfer,
    )
    from .fix.advertised import Advertisement
    from .gpu import gpu_status
    from .handles import HandleContainer, Journal
    from .interpreter import Arm, QuantizedExtension, TensorInterpreter
    from .ir import (
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
    from .policies import Policy
    from .profiles import Profile
    from .request import Arrival, TransferRequest, Transport
    from .runtime import Runtime
    from .tensor import RouterTensor, status_for
    from .trace import Trace, TraceEvent
    from .view import (
        Cell,
        TableView,
        Viewable,
        format_cell,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    "routerlab.core.backend": (
        "Backend", "HandleKind", "Kind", "Primitive", "kind_of", "make_backend",
    ),
    "routerlab.core.data": (
        "TensorData",
    ),
    "routerlab.core.deployment": (
        "Deployment",
    ),
    "routerlab.core.devices": (
        "Device", "DeviceLike", "Path", "automatic_path", "parse_device",
    ),
    "routerlab.core.dtypes": (
        "AnyDType", "DType", "QFloat", "is_quantized",
    ),
    "routerlab.core.errors": (
        "BurnPanic", "BurnTodo", "BurnUnimplemented", "DeadlockError", "DeviceError",
        "DTypeError", "ExtensionMissingError", "GpuUnavailableError", "LimitError",
        "MissingHandleError", "QuantizationError", "RouterLabError", "ScenarioError",
        "SessionEnded", "ShapeError", "TransferRejected", "UnknownTensorError",
        "UseAfterDropError",
    ),
    "routerlab.core.fix": (
        "TransferPlan", "can_move_to_device", "is_quantized_handle", "plan_transfer",
    ),
    "routerlab.core.fix.advertised": (
        "Advertisement",
    ),
    "routerlab.core.gpu": (
        "gpu_status",
    ),
    "routerlab.core.handles": (
        "HandleContainer", "Journal",
    ),
    "routerlab.core.interpreter": (
        "Arm", "QuantizedExtension", "TensorInterpreter",
    ),
    "routerlab.core.ir": (
        "NOT_INIT", "READ_ONLY", "READ_WRITE", "AddOp", "CastOp", "DequantizeOp", "DropOp",
        "ExposeLocalOp", "ExposeRemoteOp", "InitOp", "MatmulOp", "MulOp", "OperationIr",
        "QuantizeOp", "ReadOp", "RegisterDataOp", "RegisterLocalOp", "RegisterRemoteOp",
        "ReshapeOp", "SwapDimsOp", "TensorId", "TensorIr", "TensorStatus",
    ),
    "routerlab.core.policies": (
        "Policy",
    ),
    "routerlab.core.profiles": (
        "Profile",
    ),
    "routerlab.core.request": (
        "Arrival", "TransferRequest", "Transport",
    ),
    "routerlab.core.runtime": (
        "Runtime",
    ),
    "routerlab.core.tensor": (
        "RouterTensor", "status_for",
    ),
    "routerlab.core.trace": (
        "Trace", "TraceEvent",
    ),
    "routerlab.core.view": (
        "Cell", "TableView", "Viewable", "format_cell",
    ),
}
"""Each submodule and the public names it defines, which `__getattr__` loads. The imports above
(for the type checker) and `__all__` repeat them; tests/packaging/test_import_hygiene.py keeps
the three in step."""

_LAZY = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = [
    "AddOp", "Advertisement", "AnyDType", "Arm", "Arrival", "Backend", "BurnPanic", "BurnTodo",
    "BurnUnimplemented", "CastOp", "Cell", "DType", "DTypeError", "DeadlockError", "Deployment",
    "DequantizeOp", "Device", "DeviceError", "DeviceLike", "DropOp", "ExposeLocalOp",
    "ExposeRemoteOp", "ExtensionMissingError", "GpuUnavailableError", "HandleContainer",
    "HandleKind", "InitOp", "Journal", "Kind", "LimitError", "MatmulOp", "MissingHandleError",
    "MulOp", "NOT_INIT", "OperationIr", "Path", "Policy", "Primitive", "Profile", "QFloat",
    "QuantizationError", "QuantizeOp", "QuantizedExtension", "READ_ONLY", "READ_WRITE", "ReadOp",
    "RegisterDataOp", "RegisterLocalOp", "RegisterRemoteOp", "ReshapeOp", "RouterLabError",
    "RouterTensor", "Runtime", "ScenarioError", "SessionEnded", "ShapeError", "SwapDimsOp",
    "TableView", "TensorData", "TensorId", "TensorInterpreter", "TensorIr", "TensorStatus",
    "Trace", "TraceEvent", "TransferPlan", "TransferRejected", "TransferRequest", "Transport",
    "UnknownTensorError", "UseAfterDropError", "Viewable", "automatic_path", "can_move_to_device",
    "format_cell", "gpu_status", "is_quantized", "is_quantized_handle", "kind_of", "make_backend",
    "parse_device", "plan_transfer", "status_for",
]

_REMOVED = {
    "install_quantized_extension": "extensions belong to a Runtime: Runtime(quantized=...)",
    "TransferOptions": "a transfer is one TransferRequest: TransferRequest.of(device, policy=...)",
}


def __getattr__(name: str) -> Any:
    """Load a public name on first use; a name removed in 0.2 fails with what replaces it."""
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    if name in _REMOVED:
        raise ImportError(f"routerlab.core.{name} was removed in RouterLab 0.2; {_REMOVED[name]}")
    raise AttributeError(f"module 'routerlab.core' has no attribute {name!r}")
