import math  # noqa: F401 (for the TODO)
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
    # TODO: f32 identity, saturation, the subnormal ladder, then the bit trick.
    raise NotImplementedError("round_up")
