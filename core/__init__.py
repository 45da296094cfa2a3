"""The RouterLab model of Burn's router backend: the public API the faces use.

Knows nothing of Typer, rich, IPython or CuPy (CuPy is looked for on the first use of a `cuda:N`
device). Every public name is loaded on first use (PEP 562), so `routerlab --help`, which imports
nothing of the model, and a command that needs one module stay fast; the faces import the model
through these names and the packages `routerlab.core.quant` and `routerlab.core.scenario` only
(tests/present/test_layers.py).

`_PUBLIC` is the one list of public names, by the submodule that defines each: `__getattr__`
loads from it and `__all__` is its names. The imports under `TYPE_CHECKING` say the same to a
type checker, which cannot read a table (tests/packaging/test_types.py keeps the two equal).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # `X as X`: an explicit re-export, which `mypy --strict` requires
    from .router.backend import (
        Backend as Backend,
        HandleKind as HandleKind,
        Kind as Kind,
        Primitive as Primitive,
        kind_of as kind_of,
        make_backend as make_backend,
    )
    from .base.data import TensorData as TensorData
    from .snapshot import Deployment as Deployment
    from .base.devices import (
        Device as Device,
        DeviceLike as DeviceLike,
        Path as Path,
        automatic_path as automatic_path,
        check_topology as check_topology,
        parse_device as parse_device,
    )
    from .base.dtypes import (
        AnyDType as AnyDType,
        DType as DType,
        QFloat as QFloat,
        is_quantized as is_quantized,
    )
    from .base.errors import (
        BurnPanic as BurnPanic,
        BurnTodo as BurnTodo,
        BurnUnimplemented as BurnUnimplemented,
        DeadlockError as DeadlockError,
        DeviceError as DeviceError,
        DTypeError as DTypeError,
        ExtensionMissingError as ExtensionMissingError,
        GpuUnavailableError as GpuUnavailableError,
        LimitError as LimitError,
        MissingHandleError as MissingHandleError,
        QuantizationError as QuantizationError,
        RouterLabError as RouterLabError,
        ScenarioError as ScenarioError,
        SessionEnded as SessionEnded,
        ShapeError as ShapeError,
        TransferRejected as TransferRejected,
        UnknownTensorError as UnknownTensorError,
        UseAfterDropError as UseAfterDropError,
    )
    from .fix import (
        TransferPlan as TransferPlan,
        can_move_to_device as can_move_to_device,
        is_quantized_handle as is_quantized_handle,
        plan_transfer as plan_transfer,
    )
    from .fix.advertised import Advertisement as Advertisement
    from .base.gpu import gpu_status as gpu_status
    from .router.custom_op import CustomOp as CustomOp, CustomOpRegistry as CustomOpRegistry
    from .router.handles import HandleContainer as HandleContainer, Journal as Journal
    from .router.interpreter import (
        Arm as Arm,
        QuantizedExtension as QuantizedExtension,
        TensorInterpreter as TensorInterpreter,
    )
    from .router.ir import (
        NOT_INIT as NOT_INIT,
        READ_ONLY as READ_ONLY,
        READ_WRITE as READ_WRITE,
        AddOp as AddOp,
        CastOp as CastOp,
        DequantizeOp as DequantizeOp,
        DropOp as DropOp,
        ExposeLocalOp as ExposeLocalOp,
        ExposeRemoteOp as ExposeRemoteOp,
        InitOp as InitOp,
        MatmulOp as MatmulOp,
        MulOp as MulOp,
        OperationIr as OperationIr,
        QuantizeOp as QuantizeOp,
        ReadOp as ReadOp,
        RegisterDataOp as RegisterDataOp,
        RegisterLocalOp as RegisterLocalOp,
        RegisterRemoteOp as RegisterRemoteOp,
        ReshapeOp as ReshapeOp,
        SwapDimsOp as SwapDimsOp,
        TensorId as TensorId,
        TensorIr as TensorIr,
        TensorStatus as TensorStatus,
    )
    from .base.policies import Policy as Policy
    from .base.profiles import Profile as Profile
    from .base.request import (
        Arrival as Arrival,
        TransferRequest as TransferRequest,
        Transport as Transport,
    )
    from .runtime import Runtime as Runtime
    from .router.tensor import RouterTensor as RouterTensor, status_for as status_for
    from .base.trace import Trace as Trace, TraceEvent as TraceEvent
    from .base.view import (
        Cell as Cell,
        TableView as TableView,
        Viewable as Viewable,
        format_cell as format_cell,
    )


_PUBLIC: dict[str, tuple[str, ...]] = {
    "router.backend": ("Backend", "HandleKind", "Kind", "Primitive", "kind_of", "make_backend"),
    "base.data": ("TensorData",),
    "snapshot": ("Deployment",),
    "base.devices": ("Device", "DeviceLike", "Path", "automatic_path", "check_topology",
                "parse_device"),
    "base.dtypes": ("AnyDType", "DType", "QFloat", "is_quantized"),
    "base.errors": (
        "BurnPanic", "BurnTodo", "BurnUnimplemented", "DeadlockError", "DeviceError", "DTypeError",
        "ExtensionMissingError", "GpuUnavailableError", "LimitError", "MissingHandleError",
        "QuantizationError", "RouterLabError", "ScenarioError", "SessionEnded", "ShapeError",
        "TransferRejected", "UnknownTensorError", "UseAfterDropError",
    ),
    "fix": ("TransferPlan", "can_move_to_device", "is_quantized_handle", "plan_transfer"),
    "fix.advertised": ("Advertisement",),
    "base.gpu": ("gpu_status",),
    "router.custom_op": ("CustomOp", "CustomOpRegistry"),
    "router.handles": ("HandleContainer", "Journal"),
    "router.interpreter": ("Arm", "QuantizedExtension", "TensorInterpreter"),
    "router.ir": (
        "NOT_INIT", "READ_ONLY", "READ_WRITE", "AddOp", "CastOp", "DequantizeOp", "DropOp",
        "ExposeLocalOp", "ExposeRemoteOp", "InitOp", "MatmulOp", "MulOp", "OperationIr",
        "QuantizeOp", "ReadOp", "RegisterDataOp", "RegisterLocalOp", "RegisterRemoteOp",
        "ReshapeOp", "SwapDimsOp", "TensorId", "TensorIr", "TensorStatus",
    ),
    "base.policies": ("Policy",),
    "base.profiles": ("Profile",),
    "base.request": ("Arrival", "TransferRequest", "Transport"),
    "runtime": ("Runtime",),
    "router.tensor": ("RouterTensor", "status_for"),
    "base.trace": ("Trace", "TraceEvent"),
    "base.view": ("Cell", "TableView", "Viewable", "format_cell"),
}
_WHERE = {name: f"{__name__}.{module}" for module, names in _PUBLIC.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    """Load a public name on first use (PEP 562) and keep it, so the next use is a plain
    attribute."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'routerlab.core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
