"""The model's values as MessagePack data, and back: ops, tensor uses, host bytes, errors.

burn-remote serialises its `Task`s with serde into MessagePack (`rmp_serde`,
`crates/burn-remote/src/server/pump.rs:95`, `crates/burn-communication/src/external_comm.rs:107`).
RouterLab's ops are dataclasses, so the codec writes each one as a map of its fields under the
op's class name, and reads it back through a *fixed table* of the op classes
`core/router/ir.py` defines and the custom op (`core/router/custom_op.py`, carried as data
only: an id, tensor uses and numbers; the peer's own registry decides what runs): a name that
is not in the table, a field the class does not have, or a value of the wrong shape is a
`CodecError` (one line), never an `eval`, an import or a pickle. Values inside a field are
tagged maps (`{"~": "tir", ...}`) for the few model types that travel: `TensorIr`, dtypes,
quantization schemes, `TensorData`, `TransferRequest` and `QuantizeParams`.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from typing import Any

from ..base import errors as E
from ..base.data import TensorData
from ..base.devices import Path, parse_device
from ..base.dtypes import AnyDType, DType, QFloat
from ..base.limits import MAX_DIMS
from ..base.policies import Policy
from ..base.request import Arrival, TransferRequest, Transport
from ..fix.qtensor import QuantizeParams
from ..quant import Calibration
from ..quant.scheme import (
    BlockSize,
    QuantMode,
    QuantScheme,
    QuantStore,
    QuantValue,
    ScaleDtype,
    StoreKind,
)
from ..router.custom_op import CustomOp
from ..router.ir import (
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
from . import protocol as P
from .protocol import CodecError
from .readback import Readback

OPS: dict[str, type[OperationIr]] = {cls.__name__: cls for cls in (
    InitOp, DropOp, RegisterDataOp, ReadOp, AddOp, MulOp, MatmulOp, ReshapeOp, SwapDimsOp,
    CastOp, QuantizeOp, DequantizeOp, ExposeLocalOp, RegisterLocalOp, ExposeRemoteOp,
    RegisterRemoteOp, CustomOp)}
"""Every op and task that may cross the wire, by class name (the only names decoded)."""
MAX_CUSTOM_TENSORS = 64
"""The most inputs, outputs or scalars a custom op may carry (a decoded list is bounded)."""
MAX_CUSTOM_ID = 128
"""The longest custom op id decoded."""

_TASK_KINDS: dict[type, str] = {
    RegisterDataOp: P.REGISTER_TENSOR, ReadOp: P.READ_TENSOR,
    ExposeLocalOp: P.EXPOSE_TENSOR_LOCAL, RegisterLocalOp: P.REGISTER_TENSOR_LOCAL,
    ExposeRemoteOp: P.EXPOSE_TENSOR_REMOTE, RegisterRemoteOp: P.REGISTER_TENSOR_REMOTE,
}


def task_kind(op: OperationIr) -> str:
    """The message kind an op travels as (burn-remote's `Task` variant); any op that is not a
    data or transfer task is a `RegisterOperation`."""
    return _TASK_KINDS.get(type(op), P.REGISTER_OPERATION)


_ERRORS: dict[str, type[E.RouterLabError]] = {cls.__name__: cls for cls in (
    E.RouterLabError, E.BurnPanic, E.BurnTodo, E.BurnUnimplemented, E.MissingHandleError,
    E.DeviceError, E.DTypeError, E.ShapeError, E.UseAfterDropError, E.LimitError,
    E.QuantizationError, E.TransferRejected, E.DeadlockError, E.SessionEnded,
    E.UnknownTensorError, E.ExtensionMissingError, E.MessageLost,
    E.TransferTimedOut, E.DeviceOutOfMemory, CodecError)}
"""The errors a peer may report, rebuilt on the client as the same class."""


# --- values ----------------------------------------------------------------------------------


def encode_value(value: Any) -> Any:
    """A field's value as plain MessagePack data (tagged maps for the model's types)."""
    if value is None or isinstance(value, bool | str | float):
        return value
    if isinstance(value, TensorIr):
        return {"~": "tir", "id": int(value.id), "shape": list(value.shape),
                "status": value.status.value, "dtype": encode_dtype(value.dtype)}
    if isinstance(value, int):
        return int(value)
    if isinstance(value, DType | QFloat):
        return {"~": "dtype", "v": encode_dtype(value)}
    if isinstance(value, QuantScheme):
        return {"~": "scheme", "v": encode_scheme(value)}
    if isinstance(value, TensorData):
        return encode_data(value)
    if isinstance(value, TransferRequest):
        return {"~": "request", "device": str(value.device), "policy": _name(value.policy),
                "path": _name(value.path), "transport": _name(value.transport),
                "arrival": _name(value.arrival), "hops": value.hops}
    if isinstance(value, QuantizeParams):
        return {"~": "qparams", "scales": None if value.scales is None else list(value.scales),
                "global": value.global_scale, "calibration": value.calibration.value}
    raise CodecError(f"a {type(value).__name__} cannot cross the wire")


def decode_value(raw: Any) -> Any:
    """The inverse of `encode_value`; anything else is a `CodecError`."""
    if raw is None or isinstance(raw, bool | str | float | int):
        return raw
    if not isinstance(raw, dict) or not isinstance(raw.get("~"), str):
        raise CodecError(f"expected a tagged value, got {_brief(raw)}")
    decode = _DECODERS.get(raw["~"])
    if decode is None:
        raise CodecError(f"unknown value tag {raw['~']!r}")
    return _guarded(decode, raw, raw["~"])


def encode_dtype(dtype: AnyDType) -> Any:
    return dtype.value if isinstance(dtype, DType) else {"q": encode_scheme(dtype.scheme)}


def decode_dtype(raw: Any) -> AnyDType:
    if isinstance(raw, str):
        return DType.parse(raw)
    if isinstance(raw, dict) and set(raw) == {"q"}:
        return QFloat(decode_scheme(raw["q"]))
    raise CodecError(f"expected a dtype, got {_brief(raw)}")


def encode_scheme(scheme: QuantScheme) -> list[Any]:
    store = None if scheme.store is None else [scheme.store.kind.value, scheme.store.dim]
    block = None if scheme.block is None else [list(scheme.block.size.dims),
                                               scheme.block.dtype.value]
    return [scheme.value.value, store, scheme.mode.value, _name(scheme.tensor), block]


def decode_scheme(raw: Any) -> QuantScheme:
    if not isinstance(raw, list) or len(raw) != 5:
        raise CodecError(f"expected a scheme [value, store, mode, tensor, block], got "
                         f"{_brief(raw)}")
    value, store, mode, tensor, block = raw
    scheme = QuantScheme(QuantValue(value),
                         None if store is None else QuantStore(StoreKind(store[0]), int(store[1])),
                         QuantMode(mode), None if tensor is None else ScaleDtype(tensor))
    if block is not None:
        scheme = scheme.per_block(BlockSize(tuple(int(d) for d in block[0])), ScaleDtype(block[1]))
    return scheme


def encode_data(data: TensorData | Readback) -> dict[str, Any]:
    """Tensor data; a readback in progress goes as the blob it will be (`streams`)."""
    return {"~": "data", "bytes": P.Blob(data.bytes if isinstance(data, TensorData) else data),
            "shape": list(data.shape), "dtype": encode_dtype(data.dtype)}


def decode_data(raw: Any) -> TensorData:
    if not isinstance(raw, dict) or raw.get("~") != "data":
        raise CodecError(f"expected tensor data, got {_brief(raw)}")
    return _guarded(_data, raw, "data")


def _data(raw: dict[str, Any]) -> TensorData:
    payload = raw["bytes"]  # a blob read from /data is a read-only view of its one buffer
    if not isinstance(payload, bytes) and not (isinstance(payload, memoryview)
                                               and payload.readonly):
        raise CodecError("tensor data bytes must be a MessagePack bin")
    return TensorData(payload, _shape(raw["shape"]),  # type: ignore[arg-type]  # as from_array
                      decode_dtype(raw["dtype"]))


def _shape(raw: Any) -> tuple[int, ...]:
    if not isinstance(raw, list) or len(raw) > MAX_DIMS or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in raw):
        raise CodecError(f"expected a shape (at most {MAX_DIMS} non-negative ints), got "
                         f"{_brief(raw)}")
    return tuple(raw)


def _tensor_ir(raw: dict[str, Any]) -> TensorIr:
    tensor_id = raw["id"]
    if not isinstance(tensor_id, int) or isinstance(tensor_id, bool) or tensor_id < 0:
        raise CodecError(f"a tensor id must be a non-negative int, got {_brief(tensor_id)}")
    return TensorIr(TensorId(tensor_id), _shape(raw["shape"]), TensorStatus(raw["status"]),
                    decode_dtype(raw["dtype"]))


def _request(raw: dict[str, Any]) -> TransferRequest:
    return TransferRequest(parse_device(raw["device"]), _parse(Policy, raw["policy"]),
                           _parse(Path, raw["path"]), _parse(Transport, raw["transport"]),
                           _parse(Arrival, raw["arrival"]), int(raw["hops"]))


def _qparams(raw: dict[str, Any]) -> QuantizeParams:
    scales = raw["scales"]
    return QuantizeParams(None if scales is None else tuple(float(s) for s in scales),
                          None if raw["global"] is None else float(raw["global"]),
                          Calibration.parse(raw["calibration"]))


_DECODERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "tir": _tensor_ir, "dtype": lambda raw: decode_dtype(raw["v"]),
    "scheme": lambda raw: decode_scheme(raw["v"]), "data": _data, "request": _request,
    "qparams": _qparams,
}


# --- ops -------------------------------------------------------------------------------------


def encode_op(op: OperationIr) -> dict[str, Any]:
    """`{"op": class name, field: value, ...}` for an op of the fixed table."""
    name = type(op).__name__
    if OPS.get(name) is not type(op):
        raise CodecError(f"op {name} is not one the wire protocol carries")
    if isinstance(op, CustomOp):  # `CustomOpIr { id, inputs, outputs, scalars }`: lists
        return {"op": name, "id": op.id, "ins": [encode_value(t) for t in op.ins],
                "outs": [encode_value(t) for t in op.outs],
                "scalars": [float(s) for s in op.scalars]}
    fields = {f.name: encode_value(getattr(op, f.name)) for f in dataclasses.fields(op)}
    return {"op": name, **fields}


def decode_op(raw: Any) -> OperationIr:
    """Rebuild an op from the fixed table; every tensor field must hold a `TensorIr`."""
    if not isinstance(raw, dict) or not isinstance(raw.get("op"), str):
        raise CodecError(f"expected an op, got {_brief(raw)}")
    cls = OPS.get(raw["op"])
    if cls is None:
        raise CodecError(f"unknown op {raw['op']!r}; the protocol carries: {', '.join(OPS)}")
    names = {f.name for f in dataclasses.fields(cls)}
    given = set(raw) - {"op"}
    if given != names:
        raise CodecError(f"op {raw['op']} takes fields {sorted(names)}, got {sorted(given)}")
    if cls is CustomOp:
        return _guarded(_custom_op, raw, raw["op"])  # type: ignore[no-any-return]
    op = _guarded(lambda r: cls(**{k: decode_value(v) for k, v in r.items() if k != "op"}),
                  raw, raw["op"])
    for tensor in (*cls._inputs, *cls._outputs):
        if not isinstance(getattr(op, tensor), TensorIr):
            raise CodecError(f"op {raw['op']}: field {tensor!r} must be a tensor use")
    return op


def _custom_op(raw: dict[str, Any]) -> CustomOp:
    """A custom op as data only: an id (a bounded string), lists of tensor uses and of numbers,
    each at most `MAX_CUSTOM_TENSORS` long. Nothing in it names code: the peer's registry
    decides what runs (core/router/custom_op.py)."""
    op_id = raw["id"]
    if not isinstance(op_id, str) or not 0 < len(op_id) <= MAX_CUSTOM_ID:
        raise CodecError(f"a custom op id is a string of 1 to {MAX_CUSTOM_ID} characters, got "
                         f"{_brief(op_id)}")
    lists = {}
    for key in ("ins", "outs", "scalars"):
        value = raw[key]
        if not isinstance(value, list) or len(value) > MAX_CUSTOM_TENSORS:
            raise CodecError(f"custom op {key}: expected a list of at most "
                             f"{MAX_CUSTOM_TENSORS}, got {_brief(value)}")
        lists[key] = value
    tensors = {key: tuple(decode_value(t) for t in lists[key]) for key in ("ins", "outs")}
    if not all(isinstance(t, TensorIr) for t in (*tensors["ins"], *tensors["outs"])):
        raise CodecError("custom op: every input and output must be a tensor use")
    if not all(isinstance(s, int | float) and not isinstance(s, bool) for s in lists["scalars"]):
        raise CodecError("custom op scalars: expected numbers")
    return CustomOp(op_id, tensors["ins"], tensors["outs"],
                    tuple(float(s) for s in lists["scalars"]))


# --- errors ----------------------------------------------------------------------------------


def encode_error(error: BaseException) -> dict[str, Any]:
    """A failure as data: its class (when the client knows it), Burn's text and source, the
    session it ended and what followed (`BurnPanic`'s parts, kept apart)."""
    name = type(error).__name__ if type(error).__name__ in _ERRORS else "RouterLabError"
    if isinstance(error, E.BurnPanic):
        return {"error": name, "message": error.message, "source": error.source,
                "session": error.session, "effects": list(error.effects),
                "tensor_id": getattr(error, "tensor_id", None)}
    text = str(error) if isinstance(error, E.RouterLabError) else \
        f"internal error on the peer: {type(error).__name__}: {error}"
    return {"error": name, "message": text}


def decode_error(raw: Any) -> E.RouterLabError:
    """The client's copy of a peer's error, of the same class; a panic keeps its parts."""
    if not isinstance(raw, dict):
        return CodecError(f"a malformed error report: {_brief(raw)}")
    cls = _ERRORS.get(raw.get("error", ""), E.RouterLabError)
    message = str(raw.get("message", ""))
    if not issubclass(cls, E.BurnPanic):
        return cls(message)
    panic = cls.__new__(cls)
    E.BurnPanic.__init__(panic, message, str(raw.get("source", "")))
    panic.session = raw.get("session")
    panic.effects = tuple(str(e) for e in raw.get("effects") or ())
    if raw.get("tensor_id") is not None:
        panic.tensor_id = int(raw["tensor_id"])  # type: ignore[attr-defined]
    return panic


# --- helpers ---------------------------------------------------------------------------------


def _name(choice: Any) -> str | None:
    return None if choice is None else choice.value


def _parse(choice: Any, raw: Any) -> Any:
    return None if raw is None else choice.parse(raw)


def _guarded(build: Callable[[Any], Any], raw: Any, what: str) -> Any:
    """Run `build(raw)`; a missing key, a wrong type or a value the model refuses becomes one
    `CodecError` line naming `what`."""
    try:
        return build(raw)
    except CodecError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, ArithmeticError, AttributeError,
            RecursionError, E.RouterLabError) as error:
        detail = f"missing field {error}" if isinstance(error, KeyError) else str(error)
        raise CodecError(f"malformed {what}: {detail}") from None


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlong = 2, 40, 40, 40


def _brief(raw: Any) -> str:
    """A value as a short piece of an error line: `reprlib` looks two levels deep at most, so a
    value nested a thousand deep is no `RecursionError`."""
    text = _REPR.repr(raw)
    return text if len(text) <= 80 else text[:77] + "..."
