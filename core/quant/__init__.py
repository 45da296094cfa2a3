"""Quantization, bit-faithful to Burn 2c06be3 (docs/burn.md section 12 to #16).

The public API, one job per module:
- `scheme` / `notation`: the scheme space and its compact string (`parse_scheme("q4f:block=32")`);
- `scale_dtype`: Burn's round-UP of stored scales;
- `calibration`: MinMax / AbsMean ranges and the scales they give;
- `quantize`: static and dynamic quantization and dequantization under a backend profile;
- `packing`, `layout`, `bytes`: u32 packing, storage layout and the canonical byte layout;
- `quantized`: the `QuantizedTensor` primitive.
"""

from .bytes import from_bytes, to_bytes
from .calibration import Calibration, QParams, compute_q_params, compute_range
from .compare import count_changed, max_abs_difference
from .dequant import dequantize
from .inputs import parse_floats, parse_shape, random_tensor, tensor_from
from .layout import QuantLayout, layout_of, params_shape, quantized_data_len
from .notation import format_scheme, parse_scheme
from .ops import quantize, quantize_dynamic
from .packing import pack_u32, unpack_u32
from .quantized import QuantizedTensor
from .report import ARRAYS_HINT, QuantizeReport, quantize_report
from .scale_dtype import round_up
from .scheme import (
    BlockScale,
    BlockSize,
    QuantMode,
    QuantScheme,
    QuantStore,
    QuantValue,
    ScaleDtype,
    StoreKind,
    check_quantizable,
    quantizable,
)

__all__ = [
    "ARRAYS_HINT",
    "QuantizeReport", "count_changed", "max_abs_difference", "parse_floats", "parse_shape",
    "quantize_report", "random_tensor", "tensor_from",
    "BlockScale",
    "BlockSize",
    "Calibration",
    "QParams",
    "QuantLayout",
    "QuantMode",
    "QuantScheme",
    "QuantStore",
    "QuantValue",
    "QuantizedTensor",
    "ScaleDtype",
    "StoreKind",
    "check_quantizable",
    "compute_q_params",
    "compute_range",
    "dequantize",
    "format_scheme",
    "from_bytes",
    "layout_of",
    "pack_u32",
    "params_shape",
    "parse_scheme",
    "quantizable",
    "quantize",
    "quantize_dynamic",
    "quantized_data_len",
    "round_up",
    "to_bytes",
    "unpack_u32",
]
