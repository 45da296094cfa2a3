"""The RouterLab model of Burn's router backend: the public API the faces use.

Knows nothing of Typer, rich, IPython or CuPy (CuPy is looked for on the first use of a `cuda:N`
device). Every public name is loaded on first use (PEP 562), so `routerlab --help`, which imports
nothing of the model, and a command that needs one module stay fast; the faces import the model
through these names and the packages `routerlab.core.quant` and `routerlab.core.scenario` only
(tests/present/test_layers.py). The imports below, for the type checker, are the one list of
public names: `__getattr__` and `__all__` are read from them.
"""

from __future__ import annotations

import importlib
from functools import cache
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
        check_topology,
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


@cache
def _exports() -> dict[str, str]:
    """Each public name and the submodule that defines it, read from the type checker's imports
    above: they are the one list (PEP 562 loads a name on first use, so nothing is imported
    here; reading this file's own syntax tree takes about a millisecond, once)."""
    import ast  # here: only a lookup needs it, and `import routerlab.core` stays light

    with open(__file__, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    block = next(node for node in tree.body if isinstance(node, ast.If))
    return {alias.name: f"{__name__}.{node.module}" for node in block.body
            if isinstance(node, ast.ImportFrom) for alias in node.names}


_REMOVED = {
    "install_quantized_extension": "extensions belong to a Runtime: Runtime(quantized=...)",
    "TransferOptions": "a transfer is one TransferRequest: TransferRequest.of(device, policy=...)",
}


def __getattr__(name: str) -> Any:
    """Load a public name on first use; a name removed before 0.1.0 fails with what replaces
    it. `__all__` is the list above, sorted."""
    if name == "__all__":
        return sorted(_exports())
    module = _exports().get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    if name in _REMOVED:
        raise ImportError(f"routerlab.core.{name} was removed before RouterLab 0.1.0; "
                          f"{_REMOVED[name]}")
    raise AttributeError(f"module 'routerlab.core' has no attribute {name!r}")
