"""The quantized arms of the interpreter: RouterLab's fix for every `QFloat` wall in Burn.

`QuantizedTransfers` implements the core's `QuantizedExtension` hooks, which the interpreter calls
wherever Burn has a `todo!()` for a quantized tensor (docs/burn.md section 7):

| hook | Burn 2c06be3 | here |
|---|---|---|
| `get_tensor` | `todo!("Local transfer of QFloat(..)")` (interpreter.rs:98) | `Quantized` kind |
| `register_tensor_to_device` | `todo!(..)` (interpreter.rs:124) | `q_to_device`, register |
| `read_tensor` | `todo!()` (interpreter.rs:2161) | `q_into_data` (canonical bytes) |
| `register_tensor_data` | `todo!()` (interpreter.rs:176) | `q_from_data` |
| `quantize` / `dequantize` | `todo!()` (interpreter.rs:1390-1391) | the backend's ops |
| `change_backend` | no bridge method (bridge/base.rs:31) | `change_backend_quantized` |

The transfer hooks receive the transfer's policy (resolved by the interpreter), which picks the
*carrier*: what leaves the source and how the target rebuilds the tensor. `native` carries the
primitive itself (Fix A); `dequantize` and `requantize` carry dequantized f32 values, with or
without the stored scales (Fix B1, B2). The status rules are the core's: the source handle is
taken with the status its IR carries, so a unique tensor moves out and a shared one stays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.data import TensorData
from ..base.dtypes import DType, QFloat
from ..base.errors import QuantizationError, TransferRejected
from ..base.policies import Policy
from ..base.trace import Detail
from ..quant import Calibration, QuantScheme, params_shape, quantize_dynamic
from ..quant import quantize as quantize_static
from ..quant.scale_dtype import storage_dtype, to_f32
from ..router.backend import Backend, HandleKind, Kind, Primitive
from ..router.interpreter import TensorInterpreter
from ..router.ir import DequantizeOp, QuantizeOp, TensorId, TensorIr
from . import qtensor
from .qtensor import QPrimitive, QuantizeParams

F32 = np.float32


@dataclass(frozen=True, eq=False)
class FloatPayload:
    """What leaves the source under `dequantize` / `requantize`: the dequantized f32 values on
    the source device, and (dequantize only) the stored scales and global to requantize with."""

    values: Primitive
    scheme: QuantScheme
    scales: np.ndarray | None
    global_scale: np.float32 | None

    @property
    def dtype(self) -> QFloat:
        return QFloat(self.scheme)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.values.shape

    @property
    def device(self) -> Any:
        return self.values.device

    @property
    def nbytes(self) -> int:
        return self.values.nbytes + _params_nbytes(self.scales, self.global_scale)


class NativeCarrier:
    """Fix A: the primitive itself travels; values, scales, global and scheme arrive
    bit-identical (repacked only where the target profile reads another layout)."""

    policy = Policy.NATIVE

    def take(self, backend: Backend, q: QPrimitive) -> Any:
        return q

    def put(self, backend: Backend, carried: Any) -> QPrimitive:
        return qtensor.q_to_device(backend, carried)

    def encode(self, backend: Backend, q: QPrimitive) -> TensorData:
        return qtensor.q_into_data(backend, q)

    def decode(self, backend: Backend, data: TensorData) -> QPrimitive:
        return qtensor.q_from_data(backend, data)

    def bridge(self, source: Backend, target: Backend, q: QPrimitive) -> QPrimitive:
        return qtensor.change_backend_quantized(source, target, q)


class FloatCarrier(NativeCarrier):
    """Fix B: dequantize on the source, move f32, quantize on the target.

    With `carry_scales` (policy `dequantize`, B1) the stored scales travel too and the target
    quantizes statically with them: `round(s*q / s) == q` except at an f32 tie. Without
    (`requantize`, B2) the target recalibrates (MinMax): F-values drift (docs/transfers.md).
    Over bytes the payload is `[f32 values][scales as stored][f32 global]` (B1) or the f32
    values alone (B2), under the tensor's `QFloat` dtype so the target knows the scheme."""

    def __init__(self, carry_scales: bool) -> None:
        self.carry_scales = carry_scales
        self.policy = Policy.DEQUANTIZE if carry_scales else Policy.REQUANTIZE

    def take(self, backend: Backend, q: QPrimitive) -> FloatPayload:
        values = qtensor.dequantize(backend, q, DType.F32)
        if not self.carry_scales:
            return FloatPayload(values, q.scheme, None, None)
        return FloatPayload(values, q.scheme, q.tensor.scales, q.tensor.global_scale)

    def put(self, backend: Backend, carried: FloatPayload) -> QPrimitive:
        values = backend.float_to_device(carried.values)
        scales = None if carried.scales is None else np.array(carried.scales, copy=True)
        if scales is not None:
            backend.count_copy(_params_nbytes(scales, carried.global_scale))
        return self._quantize(backend, values.array, carried.scheme, scales, carried.global_scale)

    def encode(self, backend: Backend, q: QPrimitive) -> TensorData:
        payload = self.take(backend, q)
        regions = [payload.values.array]
        if payload.scales is not None:
            regions.append(payload.scales)
            if payload.global_scale is not None:
                regions.append(np.asarray([payload.global_scale], F32))
        return TensorData(qtensor.readback(backend, regions), q.shape, q.dtype)

    def decode(self, backend: Backend, data: TensorData) -> QPrimitive:
        if not isinstance(data.dtype, QFloat):
            raise QuantizationError(f"a {self.policy} payload must carry a QFloat dtype, "
                                    f"got {data.dtype}")
        scheme, shape = data.dtype.scheme, data.shape
        values_end = math.prod(shape) * 4
        values = backend.float_from_data(TensorData(data.bytes[:values_end], shape, DType.F32))
        scales = global_scale = None
        if self.carry_scales:
            grid = params_shape(shape, scheme)
            scales = np.frombuffer(data.bytes, storage_dtype(scheme.scale_dtype()),
                                   math.prod(grid), values_end).reshape(grid).copy()
            if scheme.is_two_level:
                global_scale = np.frombuffer(data.bytes, F32, 1, values_end + scales.nbytes)[0]
            backend.count_copy(_params_nbytes(scales, global_scale))
        expected = values_end + _params_nbytes(scales, global_scale)
        if data.num_bytes != expected:
            raise QuantizationError(f"a {self.policy} payload of {list(shape)} under {scheme} "
                                    f"takes {expected} bytes, got {data.num_bytes}")
        return self._quantize(backend, values.array, scheme, scales, global_scale)

    def bridge(self, source: Backend, target: Backend, q: QPrimitive) -> QPrimitive:
        """Across backends the f32 payload takes the bytes route: `encode`, then `decode`."""
        return self.decode(target, self.encode(source, q))

    def _quantize(self, backend: Backend, x: Any, scheme: QuantScheme, scales: np.ndarray | None,
                  global_scale: np.float32 | None) -> QPrimitive:
        held = qtensor.arrival_scheme(scheme, backend.profile, tuple(x.shape))
        if scales is None:
            tensor = quantize_dynamic(x, held, profile=backend.profile,
                                      calibration=Calibration.MINMAX)
        else:
            tensor = quantize_static(x, held, to_f32(scales), global_scale,
                                     profile=backend.profile)
        return QPrimitive(tensor, backend.device)


_CARRIERS = {Policy.NATIVE: NativeCarrier(), Policy.DEQUANTIZE: FloatCarrier(True),
             Policy.REQUANTIZE: FloatCarrier(False)}


def carrier_for(policy: Policy) -> NativeCarrier:
    """The carrier of a transfer's policy."""
    carrier = _CARRIERS.get(policy)
    if carrier is None:
        raise TransferRejected(f"policy {policy.value!r} reached a server session; it is decided "
                               "on the client (reject refuses, legacy replays Burn's arms)")
    return carrier


class QuantizedTransfers:
    """The fixed `QFloat` arms, the default quantized extension of every interpreter."""

    def get_tensor(self, interp: TensorInterpreter, ir: TensorIr,
                   policy: Policy) -> HandleKind:
        q = interp.handles.get_tensor_handle(ir)
        return HandleKind(Kind.QUANTIZED, carrier_for(policy).take(interp.backend, q))

    def register_tensor_to_device(self, interp: TensorInterpreter, id: TensorId,
                                  tensor: HandleKind, policy: Policy) -> None:
        carrier = carrier_for(policy)
        before = interp.backend.bytes_copied
        moved = carrier.put(interp.backend, tensor.primitive)
        record_arrival(interp, id, moved, tensor.primitive.dtype,
                        interp.backend.bytes_copied - before,
                        Detail("{}: {} -> {}", carrier.policy, tensor.primitive.device,
                               interp.device))
        interp.handles.register(id, moved)

    def read_tensor(self, interp: TensorInterpreter, ir: TensorIr,
                    policy: Policy) -> TensorData:
        q = interp.handles.get_tensor_handle(ir)
        return carrier_for(policy).encode(interp.backend, q)

    def register_tensor_data(self, interp: TensorInterpreter, id: TensorId, data: TensorData,
                             policy: Policy) -> None:
        carrier = carrier_for(policy)
        moved = carrier.decode(interp.backend, data)
        record_arrival(interp, id, moved, data.dtype, 0, f"{carrier.policy}: from bytes")
        interp.handles.register(id, moved)

    def quantize(self, interp: TensorInterpreter, op: QuantizeOp) -> None:
        x = interp.handles.get_tensor_handle(op.tensor)
        params = op.params if isinstance(op.params, QuantizeParams) else QuantizeParams()
        if not isinstance(op.out.dtype, QFloat):  # only a QuantizeOp built by hand, not by infer
            raise QuantizationError(f"quantize produces a QFloat tensor, not {op.out.dtype}")
        # The backend decides the layout it stores (Flex rewrites any store to Native), so the
        # primitive may hold another scheme than the op's output dtype, as in Burn.
        interp.handles.register(op.out.id, qtensor.quantize(interp.backend, x,
                                                             op.out.dtype.scheme, params))

    def dequantize(self, interp: TensorInterpreter, op: DequantizeOp) -> None:
        q = interp.handles.get_tensor_handle(op.input)
        if isinstance(op.out.dtype, QFloat):  # only a DequantizeOp built by hand, not by infer
            raise QuantizationError(  # the error quant.ops.dequantize raises for a QFloat dtype
                f"dequantize produces F32, Flex32, F64, F16 or BF16, not {op.out.dtype}")
        interp.handles.register(op.out.id, qtensor.dequantize(interp.backend, q, op.out.dtype))

    def change_backend(self, source: TensorInterpreter, target: TensorInterpreter, handle: Any,
                       policy: Policy) -> QPrimitive:
        carrier = carrier_for(policy)
        moved = carrier.bridge(source.backend, target.backend, handle)
        if moved.dtype != handle.dtype:
            target.trace.record("note", str(target.device), None, None, 0,
                                f"repacked on arrival: {handle.dtype} -> {moved.dtype}")
        return moved


def record_arrival(interp: TensorInterpreter, id: TensorId, moved: QPrimitive, sent: Any,
                   nbytes: int, detail: str | Detail) -> None:
    if nbytes:
        interp.trace.record("copy", interp.handles.label, id, None, nbytes, detail)
    if moved.dtype != sent:
        interp.trace.record("note", interp.handles.label, id, None, 0,
                            f"arrived as {moved.dtype} (sent as {sent})")


def _params_nbytes(scales: np.ndarray | None, global_scale: Any) -> int:
    return (0 if scales is None else int(scales.nbytes)) + (0 if global_scale is None else 4)
