"""quant-2 reference solution: Burn's round-up of a scale onto its dtype (scale_to_dtype)."""

import math
import struct

MAX = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "ue4m3": 448.0}
DIGITS = {"f16": 11, "bf16": 8, "ue4m3": 4}
SUBNORMAL = {"f16": (2.0**-14, 2.0**-24), "ue4m3": (2.0**-6, 2.0**-9)}  # (min normal, spacing)


def f32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def f32_from_bits(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def round_up(scale: float, dtype: str) -> float:
    """The smallest value of `dtype` that is not below `scale` (Burn's scale_to_dtype)."""
    if dtype == "f32":
        return scale
    if scale >= MAX[dtype]:
        return MAX[dtype]  # saturate
    if dtype in SUBNORMAL and scale < SUBNORMAL[dtype][0]:
        spacing = SUBNORMAL[dtype][1]
        return math.ceil(scale / spacing) * spacing  # evenly spaced subnormals
    step = 1 << (24 - DIGITS[dtype])
    # Adding step - 1 carries into the kept bits unless the dropped bits are all zero: that is
    # rounding *up* (towards +inf) onto the coarser mantissa, exactly on the f32 bit pattern.
    return f32_from_bits((f32_bits(scale) + step - 1) & ~(step - 1))
