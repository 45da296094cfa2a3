"""The quantized half of a RouterLab backend: Burn's `QTensorOps` that the router needs.

Burn's router leaves every `QTensorOps` method `unimplemented!()`
(`crates/burn-router/src/ops/qtensor.rs:10-65`), so the interpreter has nothing to call for a
`QFloat` tensor. These functions are what a backend *would* provide, written once over the
backend's array module (numpy for `cpu:N`, CuPy for `cuda:N`), as the core's float ops are:

* `quantize` / `dequantize`: the interpreter's `Quantize` / `Dequantize` arms
  (`interpreter.rs:1390-1391`, `todo!()` in Burn) through `routerlab.core.quant`;
* `q_to_device`: `B::q_to_device` between two devices of one backend: the values, the scales and
  the global scale are *all* copied (CubeCL at 2c06be3 left the scales behind: PR #5678);
* `q_into_data` / `q_from_data`: the canonical bytes (docs/burn.md, 14: values, scales, f32 global);
* `change_backend_quantized`: the bridge method Burn's `MultiBackendBridge` lacks
  (`crates/burn-router/src/bridge/base.rs:31`, `// TODO`), as Dispatch does it across backends:
  `B1::q_into_data` then `B2::q_from_data` (`crates/burn-dispatch/src/ops/qtensor.rs:36-50`).

Every arrival goes through `arrive`, which checks the layout the tensor carries against the one
the target profile reads, and repacks explicitly (or refuses) where they differ: Flex and NdArray
rewrite the store to Native in `q_from_data` (docs/burn.md, 15), CubeCL cannot hold Native sub-byte
("Can't store native sub-byte values", `crates/burn-cubecl/src/ops/qtensor.rs:94-104`). Nothing
is ever reinterpreted silently. Every copy is counted on the backend that receives it, so the
measurements read what really moved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np

from ..base.data import TensorData
from ..base.devices import Device
from ..base.dtypes import DType, QFloat
from ..base.errors import DTypeError, QuantizationError, TransferRejected
from ..base.profiles import Profile
from ..quant import (
    Calibration,
    QuantizedTensor,
    QuantScheme,
    QuantStore,
    StoreKind,
    from_bytes,
    layout_of,
    pack_u32,
    quantize_dynamic,
)
from ..quant import (
    dequantize as dequantize_values,
)
from ..quant import (
    quantize as quantize_static,
)
from ..quant.backend_rules import check_arrival, stored_scheme
from ..router.backend import QUIET_FLOAT, Backend, Primitive


@dataclass(frozen=True, eq=False)
class QPrimitive:
    """A quantized tensor living on one device: Burn's `QuantizedTensor<B>` handle.

    Like `Primitive`, it is never mutated, so handing the same object to two registry entries is
    the model of a refcounted handle clone."""

    tensor: QuantizedTensor
    device: Device

    @property
    def dtype(self) -> QFloat:
        return self.tensor.dtype

    @property
    def scheme(self) -> QuantScheme:
        return self.tensor.scheme

    @property
    def shape(self) -> tuple[int, ...]:
        return self.tensor.shape

    @property
    def nbytes(self) -> int:
        """Bytes of values + scales + global: what a native move copies."""
        return self.tensor.nbytes


@dataclass(frozen=True)
class QuantizeParams:
    """What a `QuantizeOp` carries besides the scheme: given scales (static quantization, one per
    block, row-major) or none (calibrate with `calibration`, `quantize_dynamic`)."""

    scales: tuple[float, ...] | None = None
    global_scale: float | None = None
    calibration: Calibration = Calibration.MINMAX


# --- schemes --------------------------------------------------------------------------------


def scheme_on(scheme: QuantScheme, profile: Profile, shape: tuple[int, ...]) -> QuantScheme:
    """The scheme a quantize on `profile` stores for `shape` (the client computes it before it
    submits, as Burn's builder computes an output dtype), or the backend's refusal."""
    return stored_scheme(scheme.resolve(profile), profile, tuple(shape))


@lru_cache(maxsize=1024)  # every move asks it; a refusal raises and is not cached
def arrival_scheme(scheme: QuantScheme, profile: Profile, shape: tuple[int, ...]) -> QuantScheme:
    """The scheme a tensor arriving in `scheme` is held in on `profile`.

    Flex and NdArray read any integer layout and keep it Native (their `q_from_data` rewrites the
    store, docs/burn.md, 15). CubeCL keeps Native Q8 and PackedU32; Native sub-byte ones, it cannot
    store, are repacked into PackedU32(0) when the shape allows it, else refused with the reason.
    """
    if profile is not Profile.CUBECL:
        return scheme.with_store(QuantStore.native())
    try:
        return stored_scheme(scheme, profile, tuple(shape))
    except QuantizationError as cannot_keep:
        if scheme.resolved_store().kind is not StoreKind.NATIVE:
            raise TransferRejected(f"{scheme} cannot be held on a {profile} device: "
                                   f"{cannot_keep}") from None
        try:
            return stored_scheme(scheme.with_store(QuantStore.packed_u32(0)), profile, tuple(shape))
        except QuantizationError as cannot_pack:
            raise TransferRejected(
                f"a {scheme} tensor of shape {list(shape)} cannot arrive on a {profile} device: "
                f"it holds no Native sub-byte values, and repacking into u32 words fails: "
                f"{cannot_pack}") from None


def repack(tensor: QuantizedTensor, scheme: QuantScheme) -> QuantizedTensor:
    """The same logical values, scales and global in another store (an explicit unpack/pack)."""
    if scheme is tensor.scheme or scheme == tensor.scheme:
        return tensor
    layout = layout_of(scheme, tensor.shape)
    q = tensor.q()
    values = q if layout.packed_axis is None else pack_u32(q, scheme.value.bits, layout.packed_axis)
    return replace(tensor, values=values, scheme=scheme, layout=layout)


# --- the ops --------------------------------------------------------------------------------


def quantize(backend: Backend, x: Primitive, scheme: QuantScheme,
             params: QuantizeParams) -> QPrimitive:
    """`B::quantize` (scales given) or `B::quantize_dynamic` (calibrated) on this backend."""
    if not x.dtype.is_float():
        raise DTypeError(f"quantize needs a float tensor, not {x.dtype}")
    profile = backend.profile
    if params.scales is None:
        tensor = quantize_dynamic(x.array, scheme, profile=profile, calibration=params.calibration)
    else:
        tensor = quantize_static(x.array, scheme, list(params.scales), params.global_scale,
                                 profile=profile)
    return QPrimitive(tensor, backend.device)


@QUIET_FLOAT
def dequantize(backend: Backend, q: QPrimitive, dtype: DType = DType.F32) -> Primitive:
    """`B::dequantize`: `x̂ = s_eff * q` with this backend's profile."""
    array = dequantize_values(q.tensor, profile=backend.profile, dtype=dtype)
    return Primitive(array, dtype, backend.device)


def q_to_device(backend: Backend, q: QPrimitive) -> QPrimitive:
    """`B::q_to_device` onto this backend's device: identity when already here, else a copy of
    the values (device memory) and of the scales and global (host), each counted. A backend
    replaying CubeCL at the pin (`scales_left_behind`) copies the values only: the scales region
    of the new buffer was never written, shown here as zeros (fixed later by Burn PR #5678)."""
    if q.device == backend.device:
        return q
    tensor = q.tensor
    values = backend.to_device(Primitive(tensor.values, _values_dtype(tensor), q.device))
    if backend.scales_left_behind:  # CubeCL's to_client copies the values region only
        return arrive(backend, replace(tensor, values=values.array,
                                       scales=np.zeros_like(tensor.scales)))
    backend.count_copy(tensor.params_nbytes)
    moved = tensor.with_arrays(values.array, np.array(tensor.scales, copy=True))
    return arrive(backend, moved)


Progress = Callable[[np.ndarray, int], None]
"""Told, as a readback goes, its host buffer and how many leading bytes of it are final (first
with 0, once the buffer exists): a served source sends those while the rest is still copied."""
READBACK_CHUNK = 1 << 20
"""Bytes a readback with `progress` copies between two reports (small enough to stay in cache
until the socket reads them)."""


def q_into_data(backend: Backend, q: QPrimitive, progress: Progress | None = None) -> TensorData:
    """`B::q_into_data`: one readback into the canonical layout (no intermediate buffers)."""
    tensor = q.tensor
    regions = [tensor.values, tensor.scales]
    if tensor.global_scale is not None:
        regions.append(np.asarray([tensor.global_scale], np.float32))
    return TensorData(readback(backend, regions, progress), tensor.shape, tensor.dtype)


def readback(backend: Backend, regions: list[Any], progress: Progress | None = None) -> bytes:
    """Copy arrays (device or host) back to back into one host buffer, counted as one copy;
    with `progress`, a C-contiguous host array is copied a chunk at a time, each reported.

    The buffer is returned as a read-only `memoryview`, which every reader of `TensorData.bytes`
    takes like `bytes` (`len`, `numpy.frombuffer`); building real `bytes` would copy it again."""
    sizes = [int(r.nbytes) for r in regions]
    out = np.empty(sum(sizes), np.uint8)
    report = progress or (lambda buffer, done: None)
    report(out, 0)
    start = 0
    for region, size in zip(regions, sizes, strict=True):
        if progress is not None and isinstance(region, np.ndarray) and \
                region.flags.c_contiguous:
            flat = region.reshape(-1).view(np.uint8)
            for at in range(0, size, READBACK_CHUNK):
                end = min(at + READBACK_CHUNK, size)
                np.copyto(out[start + at:start + end], flat[at:end])
                report(out, start + end)
        else:
            view = out[start:start + size].view(region.dtype).reshape(region.shape)
            if isinstance(region, np.ndarray):
                np.copyto(view, region)
            else:
                region.get(out=view)
            report(out, start + size)
        start += size
    backend.count_copy(out.nbytes)
    # `out.data` is `memoryview(out)`: numpy's stubs declare ndarray's `__buffer__` only for
    # Python >= 3.12, so under 3.11 mypy would not accept `memoryview(out)`. The read-only view
    # stands in for `bytes` on purpose (see the docstring), which the annotation cannot say.
    return out.data.toreadonly()  # type: ignore[return-value]  # memoryview read as bytes


@dataclass(frozen=True, slots=True)
class ReceivedData(TensorData):
    """Canonical bytes received straight into a host buffer that no one else holds (a served
    target reads a download into one, docs/remote.md): that receive was the arrival's copy, so on
    a host device `q_from_data` keeps views of them, as Flex's keeps the `Vec` it is handed
    (`read_bytes_to_i8`, crates/burn-std/src/tensor/quantization.rs:464-472, in
    crates/burn-flex/src/ops/qtensor.rs:43-65), and counts that copy."""


def q_from_data(backend: Backend, data: TensorData) -> QPrimitive:
    """`B::q_from_data`: split canonical bytes (values, scales, global) onto this device."""
    if not isinstance(data.dtype, QFloat):
        raise DTypeError(f"q_from_data needs quantized data, got {data.dtype}")
    check_arrival(backend.profile, data.dtype.scheme)
    tensor = from_bytes(data.bytes, data.shape, data.dtype.scheme)
    if backend.xp is np:
        backend.count_copy(data.num_bytes)
        arrived = arrive(backend, tensor)  # views of `data`, unless repacking wrote new arrays
        if not isinstance(data, ReceivedData) and np.may_share_memory(arrived.tensor.values,
                                                                    tensor.values):
            arrived = QPrimitive(arrived.tensor.with_arrays(
                tensor.values.copy(), tensor.scales.copy()), backend.device)  # the counted copy
        return arrived
    else:
        values = backend.to_device(Primitive(tensor.values, _values_dtype(tensor), _HOST))
        backend.count_copy(tensor.params_nbytes)
        tensor = replace(tensor, values=values.array)
    return arrive(backend, tensor)


def change_backend_quantized(source: Backend, target: Backend, q: QPrimitive) -> QPrimitive:
    """The missing `MultiBackendBridge::change_backend_quantized`: canonical bytes across."""
    return q_from_data(target, q_into_data(source, q))


def arrive(backend: Backend, tensor: QuantizedTensor) -> QPrimitive:
    """Check the layout an arriving tensor carries (its scheme's store, which `QuantizedTensor`
    ties to its values) against what this profile holds; repack explicitly where they differ,
    refuse (`TransferRejected`) where that is impossible."""
    wanted = arrival_scheme(tensor.scheme, backend.profile, tensor.shape)
    return QPrimitive(repack(tensor, wanted), backend.device)


# --- helpers --------------------------------------------------------------------------------

_HOST = Device("host", 0)
"""Where bytes that arrived over the wire sit before an upload: not a RouterLab device."""


_U32 = np.dtype(np.uint32)
"""Compared with a dtype, not with `np.uint32`, which numpy would turn into a dtype on every
move."""


def _values_dtype(tensor: QuantizedTensor) -> DType:
    return DType.U32 if tensor.layout.storage_dtype == _U32 else DType.I8
