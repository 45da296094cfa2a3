"""The intermediate representation the client sends and the server interprets (burn-ir).

A `TensorIr` is a snapshot of *one use* of one tensor: its id, shape, dtype and the status that
tells the server whether the handle must survive the use (`crates/burn-ir/src/tensor.rs:7-72`).
Operations embed a `TensorIr` for every input and output and list them through `inputs()` /
`outputs()`, as `OperationIr` does in Burn. Each op's `infer` derives the output shape and dtype
from the inputs alone, so the client can refuse a bad shape before it consumes any input or
submits anything (Burn's builders `unwrap()` the same checks: `crates/burn-ir/src/builder.rs`).
The client infers once, on the live inputs, and makes the output from the answer; `create` then
only puts the op together around it (`client.build_op`).

Besides Burn's `OperationIr` variants, this module holds the session *tasks* that carry data or a
transfer (`RegisterData`, `ExposeLocal`, ...): in Burn those are `Task` variants of burn-remote
(`crates/burn-remote/src/server/worker.rs:194-400`), not `OperationIr`, but they travel down the
same per-session FIFO, so the model keeps one family with one interface.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol

from ..base.dtypes import AnyDType, DType, QFloat
from ..base.errors import BurnUnimplemented, DTypeError, ShapeError
from ..base.limits import check_result

if TYPE_CHECKING:
    from ..base.data import TensorData
    from ..base.request import TransferRequest

Shape = tuple[int, ...]


class TensorId(int):
    """Burn's `TensorId { value: u64 }`: an int (fast dict key) whose `repr` is Burn's Debug text,
    so panic messages read exactly like Burn's; `str` is Burn's Display, `TensorId(N)`."""

    __slots__ = ()

    @property
    def value(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"TensorId {{ value: {int(self)} }}"

    def __str__(self) -> str:
        return f"TensorId({int(self)})"


class TensorStatus(Enum):
    """What the server may do with the handle during one use (`tensor.rs:17-26`)."""

    READ_ONLY = "ReadOnly"
    READ_WRITE = "ReadWrite"
    NOT_INIT = "NotInit"

    def __str__(self) -> str:
        return self.value


READ_ONLY = TensorStatus.READ_ONLY
READ_WRITE = TensorStatus.READ_WRITE
NOT_INIT = TensorStatus.NOT_INIT


class TensorIr(NamedTuple):
    """One use of one tensor: `{id, shape, status, dtype}`. Immutable (a named tuple: cheap to
    build, and one is built for every input and output of every op)."""

    id: TensorId
    shape: Shape
    status: TensorStatus
    dtype: AnyDType

    @classmethod
    def uninit(cls, id: TensorId, shape: Shape, dtype: AnyDType) -> TensorIr:
        """An op output: the tensor does not exist yet (`TensorIr::uninit`). Every output is
        made here, so this is where a result too large to allocate (or of more dims than numpy
        takes) is refused, before any session runs (docs/limits.md)."""
        shape = tuple(shape)
        check_result(shape, dtype.size if isinstance(dtype, DType) else 1, "the result",
                     ShapeError)
        return cls(id, shape, NOT_INIT, dtype)


class TensorMeta(Protocol):
    """What shape inference reads: a `TensorIr`, or a live `RouterTensor` before it is
    consumed."""

    @property
    def shape(self) -> Shape: ...

    @property
    def dtype(self) -> AnyDType: ...


NewId = Callable[[], TensorId]


@dataclass(frozen=True)
class OperationIr:
    """Base of every op and task. Subclasses name their input/output fields once."""

    name: ClassVar[str] = "op"
    _inputs: ClassVar[tuple[str, ...]] = ()
    _outputs: ClassVar[tuple[str, ...]] = ()

    def inputs(self) -> list[TensorIr]:
        return [getattr(self, f) for f in self._inputs]

    def outputs(self) -> list[TensorIr]:
        return [getattr(self, f) for f in self._outputs]

    def traced_id(self) -> int | None:
        """The tensor a trace line names: the first output, else the first input (None for an
        op with neither). Asked once per task, so it builds no list."""
        fields = self._outputs or self._inputs
        return int(getattr(self, fields[0]).id) if fields else None

    def describe(self) -> str:
        """One line for traces: `add(#3 ReadOnly, #4 ReadWrite) -> #5`."""
        ins = ", ".join([f"#{t.id:d} {t.status._value_}" for t in self.inputs()])
        outs = ", ".join([f"#{t.id:d}" for t in self.outputs()])
        return f"{self.name}({ins}) -> {outs}" if outs else f"{self.name}({ins})"


# --- lifecycle -------------------------------------------------------------------------------


@dataclass(frozen=True)
class InitOp(OperationIr):
    """`OperationIr::Init`: announces a tensor created from data; the interpreter does nothing
    (`crates/burn-router/src/interpreter.rs:2115-2117`)."""

    out: TensorIr
    name: ClassVar[str] = "init"
    _outputs: ClassVar[tuple[str, ...]] = ("out",)


@dataclass(frozen=True)
class DropOp(OperationIr):
    """`OperationIr::Drop`: `remove_handle(id)` whatever the status (`interpreter.rs:2118-2120`)."""

    tensor: TensorIr
    name: ClassVar[str] = "drop"
    _inputs: ClassVar[tuple[str, ...]] = ("tensor",)


@dataclass(frozen=True)
class RegisterDataOp(OperationIr):
    """`Task::RegisterTensor(id, data)` → `register_tensor_data_id` (`worker.rs:238-249`)."""

    out: TensorIr
    data: TensorData = field(repr=False)
    request: TransferRequest | None = None
    """Set when the data arrives as a move (Dispatch's `from_data`), so its policy applies."""
    name: ClassVar[str] = "register_data"
    _outputs: ClassVar[tuple[str, ...]] = ("out",)

    @staticmethod
    def create(data: TensorData, new_id: NewId,
               request: TransferRequest | None = None) -> RegisterDataOp:
        return RegisterDataOp(TensorIr.uninit(new_id(), data.shape, data.dtype), data, request)


@dataclass(frozen=True)
class ReadOp(OperationIr):
    """`Task::ReadTensor`: `read_tensor_async(ir)` runs in FIFO order (`worker.rs:369-400`)."""

    tensor: TensorIr
    request: TransferRequest | None = None
    """Set when the read is half of a move (Dispatch's `into_data`), so its policy applies."""
    name: ClassVar[str] = "read"
    _inputs: ClassVar[tuple[str, ...]] = ("tensor",)


# --- compute ---------------------------------------------------------------------------------


def _numeric(dtype: AnyDType, op: str) -> None:
    if isinstance(dtype, QFloat) or dtype is DType.BOOL:
        raise DTypeError(f"{op} needs a float, int or uint tensor, not {dtype}")


def _same_dtype(lhs: AnyDType, rhs: AnyDType, op: str) -> AnyDType:
    """Burn's `output_dtype` refuses mixed operands (`builder.rs:255`)."""
    if lhs != rhs:
        raise DTypeError(f"{op} needs operands of one dtype, got {lhs} and {rhs}")
    return lhs


def broadcast(lhs: Shape, rhs: Shape, op: str) -> Shape:
    """Burn's `Shape::broadcast`: equal ranks, and each pair of dims equal or one of them 1."""
    if lhs == rhs:
        return lhs
    if len(lhs) != len(rhs):
        raise ShapeError(f"{op}: shapes {list(lhs)} and {list(rhs)} have different ranks")
    out = []
    for a, b in zip(lhs, rhs, strict=True):
        if a != b and 1 not in (a, b):
            raise ShapeError(f"{op}: shapes {list(lhs)} and {list(rhs)} do not broadcast")
        out.append(max(a, b) if 0 not in (a, b) else 0)
    return tuple(out)


@dataclass(frozen=True)
class BinaryOp(OperationIr):
    """`BinaryOpIr {lhs, rhs, out}`; subclasses pick the arithmetic."""

    lhs: TensorIr
    rhs: TensorIr
    out: TensorIr
    _inputs: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    _outputs: ClassVar[tuple[str, ...]] = ("out",)

    @classmethod
    def infer(cls, lhs: TensorMeta, rhs: TensorMeta) -> tuple[Shape, AnyDType]:
        _numeric(lhs.dtype, cls.name)
        dtype = _same_dtype(lhs.dtype, rhs.dtype, cls.name)
        return broadcast(lhs.shape, rhs.shape, cls.name), dtype

    @classmethod
    def create(cls, lhs: TensorIr, rhs: TensorIr, *, out: TensorIr) -> BinaryOp:
        return cls(lhs, rhs, out)


@dataclass(frozen=True)
class AddOp(BinaryOp):
    """`NumericOperationIr::Add` (`crates/burn-router/src/ops/binary.rs:1-13`)."""

    name: ClassVar[str] = "add"


@dataclass(frozen=True)
class MulOp(BinaryOp):
    """`NumericOperationIr::Mul`."""

    name: ClassVar[str] = "mul"


@dataclass(frozen=True)
class MatmulOp(BinaryOp):
    """`FloatOperationIr::Matmul` / `IntOperationIr::Matmul`: `[.., m, k] @ [.., k, n]`."""

    name: ClassVar[str] = "matmul"

    @classmethod
    def infer(cls, lhs: TensorMeta, rhs: TensorMeta) -> tuple[Shape, AnyDType]:
        _numeric(lhs.dtype, "matmul")
        dtype = _same_dtype(lhs.dtype, rhs.dtype, "matmul")
        a, b = lhs.shape, rhs.shape
        if len(a) < 2 or len(b) < 2:
            raise ShapeError(f"matmul needs rank >= 2, got {list(a)} and {list(b)}")
        if a[-1] != b[-2]:
            raise ShapeError(f"matmul: {list(a)} @ {list(b)}: inner dimensions {a[-1]} != {b[-2]}")
        batch = broadcast(a[:-2], b[:-2], "matmul")
        return (*batch, a[-2], b[-1]), dtype


@dataclass(frozen=True)
class UnaryOp(OperationIr):
    """`{input, out}` ops whose parameters live only in the output's shape and dtype."""

    input: TensorIr
    out: TensorIr
    _inputs: ClassVar[tuple[str, ...]] = ("input",)
    _outputs: ClassVar[tuple[str, ...]] = ("out",)

    @staticmethod
    def infer(input: TensorMeta, param: Any) -> tuple[Shape, AnyDType]:
        raise NotImplementedError

    @classmethod
    def create(cls, input: TensorIr, param: Any, *, out: TensorIr) -> UnaryOp:
        return cls(input, out)


def refuse_quantized_layout(input: TensorMeta, source: str) -> None:
    """A layout op on a `QFloat` tensor reaches the router's `q_reshape` / `q_swap_dims`, which
    are `unimplemented!()`: the client panics before anything is built or consumed. (Behind a
    real backend CubeCL remaps the packed and block dims and Flex dequantizes and requantizes a
    blocked layout, but through the router neither is reached, fixed or not: RouterLab's fix
    covers transfers, not layout ops.)"""
    if isinstance(input.dtype, QFloat):
        raise BurnUnimplemented(source)


@dataclass(frozen=True)
class ReshapeOp(UnaryOp):
    """`BaseOperationIr::Reshape(ShapeOpIr)`: same elements, new shape."""

    name: ClassVar[str] = "reshape"

    @staticmethod
    def infer(input: TensorMeta, shape: Shape) -> tuple[Shape, AnyDType]:
        refuse_quantized_layout(input, "crates/burn-router/src/ops/qtensor.rs:41-42")
        shape = tuple(int(d) for d in shape)
        elements = math.prod(input.shape)
        if any(d < 0 for d in shape) or math.prod(shape) != elements:
            raise ShapeError(f"reshape: {list(input.shape)} ({elements} elements) "
                             f"cannot become {list(shape)} ({math.prod(shape)} elements)")
        return shape, input.dtype


@dataclass(frozen=True)
class SwapDimsOp(OperationIr):
    """`BaseOperationIr::SwapDims(SwapDimsOpIr)`."""

    input: TensorIr
    dim1: int
    dim2: int
    out: TensorIr
    name: ClassVar[str] = "swap_dims"
    _inputs: ClassVar[tuple[str, ...]] = ("input",)
    _outputs: ClassVar[tuple[str, ...]] = ("out",)

    @staticmethod
    def infer(input: TensorMeta, dim1: int, dim2: int) -> tuple[Shape, AnyDType]:
        refuse_quantized_layout(input, "crates/burn-router/src/ops/qtensor.rs:49-54")
        rank = len(input.shape)
        if not (0 <= dim1 < rank and 0 <= dim2 < rank):
            raise ShapeError(f"swap_dims({dim1}, {dim2}) on a rank-{rank} tensor")
        shape = list(input.shape)
        shape[dim1], shape[dim2] = shape[dim2], shape[dim1]
        return tuple(shape), input.dtype

    @classmethod
    def create(cls, input: TensorIr, dim1: int, dim2: int, *, out: TensorIr) -> SwapDimsOp:
        return cls(input, dim1, dim2, out)


@dataclass(frozen=True)
class CastOp(UnaryOp):
    """`CastOpIr {input, out}` (`builder.rs:91-96`): same shape, another plain dtype."""

    name: ClassVar[str] = "cast"

    @staticmethod
    def infer(input: TensorMeta, dtype: AnyDType) -> tuple[Shape, AnyDType]:
        if isinstance(dtype, QFloat) or isinstance(input.dtype, QFloat):
            raise DTypeError("cast does not quantize or dequantize; use quantize / dequantize")
        return input.shape, dtype


@dataclass(frozen=True)
class QuantizeOp(OperationIr):
    """`FloatOperationIr::Quantize(QuantizeOpIr)` (`crates/burn-ir/src/operation.rs:1524-1548`).

    Output dtype is `QFloat(scheme)`, shape the input's (`builder.rs:1349-1356`). `params` holds
    whatever the quantization extension needs (scales, global scale) as opaque data.
    """

    tensor: TensorIr
    scheme: Any
    out: TensorIr
    params: Any = None
    name: ClassVar[str] = "quantize"
    _inputs: ClassVar[tuple[str, ...]] = ("tensor",)
    _outputs: ClassVar[tuple[str, ...]] = ("out",)

    @staticmethod
    def infer(tensor: TensorMeta, scheme: Any, params: Any = None) -> tuple[Shape, AnyDType]:
        if not tensor.dtype.is_float():
            raise DTypeError(f"quantize needs a float tensor, not {tensor.dtype}")
        return tensor.shape, QFloat(scheme)

    @classmethod
    def create(cls, tensor: TensorIr, scheme: Any, params: Any = None, *,
               out: TensorIr) -> QuantizeOp:
        return cls(tensor, scheme, out, params)


@dataclass(frozen=True)
class DequantizeOp(UnaryOp):
    """`FloatOperationIr::Dequantize(DequantizeOpIr)`: QFloat in, plain float out
    (`builder.rs:1396-1402`)."""

    name: ClassVar[str] = "dequantize"

    @staticmethod
    def infer(input: TensorMeta, dtype: AnyDType) -> tuple[Shape, AnyDType]:
        if not isinstance(input.dtype, QFloat):
            raise DTypeError(f"dequantize needs a quantized tensor, not {input.dtype}")
        if isinstance(dtype, QFloat) or not dtype.is_float():
            raise DTypeError(f"dequantize produces a float dtype, not {dtype}")
        return input.shape, dtype


# --- transfers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExposeOp(OperationIr):
    """The source half of a transfer: hand tensor `tensor` over under `transfer_id`."""

    tensor: TensorIr
    transfer_id: int
    request: TransferRequest | None = None
    """How the transfer was asked for (None: the interpreter's own policy)."""
    _inputs: ClassVar[tuple[str, ...]] = ("tensor",)


@dataclass(frozen=True)
class ReceiveOp(OperationIr):
    """The target half of a transfer: register what `transfer_id` carries under `out.id`."""

    transfer_id: int
    out: TensorIr
    request: TransferRequest | None = None
    """How the transfer was asked for (None: the interpreter's own policy)."""
    _outputs: ClassVar[tuple[str, ...]] = ("out",)


@dataclass(frozen=True)
class ExposeLocalOp(ExposeOp):
    """`Task::ExposeTensorLocal`: `get_tensor(ir)`, then `local_comm.expose`
    (`worker.rs:280-294`)."""

    name: ClassVar[str] = "expose_local"


@dataclass(frozen=True)
class RegisterLocalOp(ReceiveOp):
    """`Task::RegisterTensorLocal`: `local_comm.take` (blocks) then `register_tensor_to_device`
    (`worker.rs:296-309`)."""

    name: ClassVar[str] = "register_local"


@dataclass(frozen=True)
class ExposeRemoteOp(ExposeOp):
    """`Task::ExposeTensorRemote`: `read_tensor_async` to host bytes, published for the target
    peer (`worker.rs:311-367`)."""

    name: ClassVar[str] = "expose_remote"


@dataclass(frozen=True)
class RegisterRemoteOp(ReceiveOp):
    """`Task::RegisterTensorRemote`: download the bytes, `register_tensor_data_id`
    (`worker.rs:250-278`)."""

    name: ClassVar[str] = "register_remote"
