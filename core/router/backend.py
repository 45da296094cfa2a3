"""A backend: the arrays of one device and the arithmetic on them, written once over `xp`.

`xp` is numpy for the simulated `cpu:N` devices and CuPy for `cuda:N`; the same code serves both,
as Burn's backends share the `Backend` trait. Each simulated CPU device owns its arrays, so
`*_to_device` between two of them is a real copy whose bytes are counted (`copies`,
`bytes_copied`), just as a GPU-to-GPU copy is on CUDA. `HandleKind` is the typed primitive a
same-peer transfer hands from one interpreter to another (`crates/burn-ir/src/backend.rs:44-67`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from enum import Enum
from types import ModuleType
from typing import Any

import numpy as np

from ..base.data import TensorData
from ..base.devices import Device
from ..base.dtypes import AnyDType, DType
from ..base.errors import DTypeError
from ..base.gpu import require_cupy
from ..base.profiles import Profile


@dataclass(slots=True, eq=False)
class Primitive:
    """A tensor living on one device: the `xp` array, its RouterLab dtype and the device.

    It is the backend handle stored in a `HandleContainer`; handing the same object out twice is
    the model of Burn's refcounted handle clone (burn-ir handle.rs:100-103): backends never mutate a
    primitive in place.
    """

    array: Any
    dtype: AnyDType
    device: Device

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.array.shape)

    @property
    def nbytes(self) -> int:
        return int(self.array.nbytes)


class Kind(Enum):
    """`HandleKind`'s variants. `UINT` is RouterLab's addition: Burn has no arm for unsigned ints
    at 2c06be3 (`crates/burn-router/src/interpreter.rs:88-100`)."""

    FLOAT = "float"
    INT = "int"
    UINT = "uint"
    BOOL = "bool"
    QUANTIZED = "quantized"


@dataclass(frozen=True, slots=True)
class HandleKind:
    """A typed primitive in transit between two interpreters of one server."""

    kind: Kind
    primitive: Any

    def name(self) -> str:
        return self.kind.value


def kind_of(dtype: AnyDType) -> Kind:
    """The fixed classification: every plain dtype has a kind, QFloat is `QUANTIZED`."""
    if dtype.is_float():
        return Kind.FLOAT
    if dtype.is_int():
        return Kind.INT
    if dtype.is_uint():
        return Kind.UINT
    if dtype.is_bool():
        return Kind.BOOL
    return Kind.QUANTIZED


def _check(dtype: AnyDType, kind: Kind, op: str) -> None:
    if kind_of(dtype) is not kind:
        raise DTypeError(f"{op} got a {dtype} tensor, which is not {kind.value}")


QUIET_FLOAT = np.errstate(over="ignore", invalid="ignore", divide="ignore")
"""What the sessions' context sets once (`Server`, where the ops below run), as a decorator for
float code that also runs on the client (the quantized ops' `dequantize`, which a bridge calls
there): an overflow gives inf and 0/0 NaN, as in Burn (Rust float arithmetic never traps), and
numpy's RuntimeWarning about it would only leak onto a learner's screen. As a decorator it enters
afresh on every call (an `errstate` object refuses a second `with`); CuPy never warns."""


class Backend:
    """The arrays and operations of one device."""

    def __init__(self, device: Device, xp: ModuleType) -> None:
        self.device = device
        self.xp = xp
        self.profile: Profile = device.profile
        self.copies = 0
        self.bytes_copied = 0
        self.scales_left_behind = False
        """CubeCL at the pin: a quantized `q_to_device` copies the values region only
        (`crates/burn-cubecl/src/tensor/base.rs:174-192`); set by `Runtime(cubecl_legacy=True)`."""
        self._context = contextlib.nullcontext() if xp is np else xp.cuda.Device(device.index)
        self._storages: dict[AnyDType, np.dtype[Any]] = {}

    def __repr__(self) -> str:
        return f"Backend({self.device}, {self.xp.__name__})"

    def _on_device(self) -> contextlib.AbstractContextManager[Any]:
        """CuPy allocates on the current device (`cupy.cuda.Device` makes it current); numpy
        has only one."""
        return self._context

    def _storage(self, dtype: AnyDType) -> np.dtype[Any]:
        storage = self._storages.get(dtype)
        if storage is None:
            if not isinstance(dtype, DType):
                raise DTypeError(f"{dtype} has no plain array storage")
            if dtype is DType.BF16 and self.device.kind == "cuda":
                raise DTypeError("CuPy has no bfloat16 arrays; use f16 or f32 on cuda devices")
            storage = self._storages[dtype] = dtype.numpy
        return storage

    def _count(self, nbytes: int) -> None:
        self.copies += 1
        self.bytes_copied += nbytes

    def count_copy(self, nbytes: int) -> None:
        """Count one copy made into (or out of) this device by code outside this class: the
        quantized ops (`routerlab.core.fix.qtensor`) copy scales and whole canonical
        buffers themselves, and are measured like every other copy."""
        self._count(nbytes)

    # --- data in and out ---------------------------------------------------------------------

    def from_data(self, data: TensorData) -> Primitive:
        """Upload host bytes onto this device (one counted copy). On numpy the array is a
        read-only view of the `TensorData`'s own buffer, which no one can change: the copy was
        made when the bytes were (`TensorData.from_array`, or the source's readback), as Flex's
        `from_data` adopts its bytes (crates/burn-flex/src/tensor.rs:49-58)."""
        storage = self._storage(data.dtype)
        if self.xp is np:  # keeps the immutable buffer, as Flex's `from_data` keeps its bytes
            array = np.frombuffer(data.bytes, storage).reshape(data.shape)
        else:
            with self._on_device():
                array = self.xp.asarray(data.to_numpy(), dtype=storage)
        self._count(data.num_bytes)
        return Primitive(array, data.dtype, self.device)

    def into_data(self, primitive: Primitive) -> TensorData:
        """Read the array back to host bytes (one counted copy)."""
        host = primitive.array if self.xp is np else self.xp.asnumpy(primitive.array)
        data = TensorData(np.ascontiguousarray(host).tobytes(), primitive.shape, primitive.dtype)
        self._count(data.num_bytes)
        return data

    def to_device(self, primitive: Primitive) -> Primitive:
        """Bring a primitive of this backend type onto this device: identity when it is already
        here, otherwise a real copy (`B::*_to_device`)."""
        if primitive.device == self.device:
            return primitive
        with self._on_device():
            array = self.xp.array(primitive.array, copy=True)
        self._count(primitive.nbytes)
        return Primitive(array, primitive.dtype, self.device)

    def float_from_data(self, data: TensorData) -> Primitive:
        _check(data.dtype, Kind.FLOAT, "float_from_data")
        return self.from_data(data)

    def int_from_data(self, data: TensorData) -> Primitive:
        _check(data.dtype, Kind.INT, "int_from_data")
        return self.from_data(data)

    def uint_from_data(self, data: TensorData) -> Primitive:
        _check(data.dtype, Kind.UINT, "uint_from_data")
        return self.from_data(data)

    def bool_from_data(self, data: TensorData) -> Primitive:
        _check(data.dtype, Kind.BOOL, "bool_from_data")
        return self.from_data(data)

    def float_into_data(self, primitive: Primitive) -> TensorData:
        _check(primitive.dtype, Kind.FLOAT, "float_into_data")
        return self.into_data(primitive)

    def int_into_data(self, primitive: Primitive) -> TensorData:
        _check(primitive.dtype, Kind.INT, "int_into_data")
        return self.into_data(primitive)

    def uint_into_data(self, primitive: Primitive) -> TensorData:
        _check(primitive.dtype, Kind.UINT, "uint_into_data")
        return self.into_data(primitive)

    def bool_into_data(self, primitive: Primitive) -> TensorData:
        _check(primitive.dtype, Kind.BOOL, "bool_into_data")
        return self.into_data(primitive)

    def float_to_device(self, primitive: Primitive) -> Primitive:
        _check(primitive.dtype, Kind.FLOAT, "float_to_device")
        return self.to_device(primitive)

    def int_to_device(self, primitive: Primitive) -> Primitive:
        _check(primitive.dtype, Kind.INT, "int_to_device")
        return self.to_device(primitive)

    def uint_to_device(self, primitive: Primitive) -> Primitive:
        _check(primitive.dtype, Kind.UINT, "uint_to_device")
        return self.to_device(primitive)

    def bool_to_device(self, primitive: Primitive) -> Primitive:
        _check(primitive.dtype, Kind.BOOL, "bool_to_device")
        return self.to_device(primitive)

    # --- arithmetic --------------------------------------------------------------------------
    # The ops run in the sessions' context, where float errors are quiet (`Server`); int
    # arithmetic wraps in Burn and numpy and never warned.

    def _wrap(self, array: Any, dtype: AnyDType) -> Primitive:
        """Keep the declared dtype (numpy upcasts bf16 matmul to f32, for example). Called inside
        the caller's `_on_device()`, where the cast allocates."""
        return Primitive(array.astype(self._storage(dtype), copy=False), dtype, self.device)

    def add(self, lhs: Primitive, rhs: Primitive) -> Primitive:
        with self._on_device():
            return self._wrap(self.xp.add(lhs.array, rhs.array), lhs.dtype)

    def mul(self, lhs: Primitive, rhs: Primitive) -> Primitive:
        with self._on_device():
            return self._wrap(self.xp.multiply(lhs.array, rhs.array), lhs.dtype)

    def matmul(self, lhs: Primitive, rhs: Primitive) -> Primitive:
        with self._on_device():
            return self._wrap(self.xp.matmul(lhs.array, rhs.array), lhs.dtype)

    def reshape(self, primitive: Primitive, shape: tuple[int, ...]) -> Primitive:
        with self._on_device():
            return self._wrap(self.xp.reshape(primitive.array, shape), primitive.dtype)

    def swap_dims(self, primitive: Primitive, dim1: int, dim2: int) -> Primitive:
        with self._on_device():
            swapped = self.xp.ascontiguousarray(self.xp.swapaxes(primitive.array, dim1, dim2))
            return self._wrap(swapped, primitive.dtype)

    def cast(self, primitive: Primitive, dtype: AnyDType) -> Primitive:
        """numpy's `astype`, except float to int, which saturates like Rust's `as`."""
        with self._on_device():
            array = primitive.array
            if primitive.dtype.is_float() and (dtype.is_int() or dtype.is_uint()):
                array = saturating_int(self.xp, array, self._storage(dtype))
            return self._wrap(array, dtype)


def saturating_int(xp: ModuleType, array: Any, storage: np.dtype[Any]) -> Any:
    """Float to int as Flex's `float_into_int` writes it, `x as i32` over the values read as f64
    (crates/burn-flex/src/ops/float.rs:61-124): Rust's `as` truncates toward zero, saturates at
    the int type's min and max (infinities included) and turns NaN into 0. numpy leaves those
    undefined (and warns), so they are set here. CUDA's float-to-int conversion, which CubeCL's
    cast kernel compiles to, saturates the same way; NdArray panics instead (docs/burn.md,
    "Per-backend rules")."""
    wide = array.astype(xp.float64)
    info = np.iinfo(storage)
    low, high = float(info.min), float(info.max)  # `high` rounds up to 2^63 for 64-bit types
    out = xp.clip(xp.nan_to_num(wide, nan=0.0), low, high).astype(storage)
    out[wide >= high] = info.max  # 2^63 has no i64/u64 value: numpy's cast of it is undefined
    return out


def make_backend(device: Device) -> Backend:
    """numpy for `cpu:N`; CuPy for `cuda:N` (a clear GpuUnavailableError when it cannot be)."""
    if device.kind == "cuda":
        return Backend(device, require_cupy(device.index))
    return Backend(device, np)
