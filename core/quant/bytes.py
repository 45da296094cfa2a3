"""The canonical byte layout of quantized `TensorData` (docs/burn.md section 14).

    [ values as stored ][ scales in their scale dtype ][ f32 global (two-level only) ]

Dense, no padding between the regions, native-endian (`QuantizedBytes::new` and `into_vec_i8`,
burn-std quantization.rs:198-360; the 8 i8 + 2 UE4M3 + f32 = 14-byte test pins it). CubeCL's
`q_into_data` concatenates its values, scales and global handles into the same layout. Values are
one i8 per value for Native (Q4/Q2 included) and u32 words for PackedU32.

Reading follows `split_values_off`: a packed store must pack dim 0 ("Packing must be on innermost
dimension for splitting off values"); Native values, minifloats included, are read one i8 per
value (:330), while packed minifloats and PackedNative are `unimplemented!` (:344-348).
Like Burn's reader, which reinterprets the buffer it was handed (`read_bytes_to_i8`, burn-std
quantization.rs:300-309), `from_bytes` copies nothing: values and scales are read-only views of
`data`. Whoever keeps the tensor decides whether it needs its own copy (`q_from_data` makes the
arrival copy it counts).
"""

from __future__ import annotations

import numpy as np

from ..base.errors import QuantizationError
from .layout import layout_of, params_shape, quantized_data_len
from .notation import parse_scheme
from .quantized import QuantizedTensor
from .scale_dtype import storage_dtype
from .scheme import QuantScheme, ScaleDtype


def to_bytes(tensor: QuantizedTensor) -> bytes:
    """The canonical bytes of a quantized tensor (`QuantizedTensor.to_bytes`)."""
    return tensor.to_bytes()


def from_bytes(data: bytes, shape: tuple[int, ...], scheme: QuantScheme | str) -> QuantizedTensor:
    """Split canonical bytes back into a `QuantizedTensor` of logical `shape` under `scheme`
    (which must name its store, as a `DType::QFloat` scheme always does)."""
    scheme = parse_scheme(scheme) if isinstance(scheme, str) else scheme
    shape = tuple(int(d) for d in shape)
    if scheme.is_two_level and scheme.global_scale_dtype() is not ScaleDtype.F32:
        raise QuantizationError(f"{scheme}: a two-level scheme stores its per-tensor scale as f32")
    layout = layout_of(scheme, shape)
    if layout.store.is_packed and layout.store.dim != 0:
        raise QuantizationError(
            f"{scheme}: Packing must be on innermost dimension for splitting off values "
            "(burn-std quantization.rs split_values_off)"
        )
    if layout.store.is_packed and scheme.value.is_float:
        raise QuantizationError(
            f"{scheme}: Burn's reader leaves packed {scheme.value.name} values unimplemented! "
            '("Not yet supported", burn-std quantization.rs:344-348); Native ones read as i8'
        )
    expected = quantized_data_len(scheme, shape)
    if len(data) != expected:
        raise QuantizationError(
            f"{len(data)} bytes do not hold a {list(shape)} tensor under {scheme}: the canonical "
            f"layout takes {expected} (values {layout.value_bytes})"
        )
    grid = params_shape(shape, scheme)
    scale_type = storage_dtype(scheme.scale_dtype())
    scale_end = layout.value_bytes + int(np.prod(grid)) * scale_type.itemsize
    values = np.frombuffer(data, layout.storage_dtype, layout.storage_elements, 0)
    scales = np.frombuffer(data, scale_type, int(np.prod(grid)), layout.value_bytes)
    global_scale = None
    if scheme.is_two_level:
        global_scale = np.frombuffer(data, np.float32, 1, scale_end)[0]
    return QuantizedTensor(
        values.reshape(layout.storage_shape),
        scales.reshape(grid),
        global_scale,
        scheme,
        shape,
        layout,
    )
