import math  # noqa: F401 (for the TODO)
import struct


def f32_bits(value: float) -> int:
    """The f32 bit pattern of `value` (plumbing, not the answer)."""
    return struct.unpack("<I", struct.pack("<f", value))[0]


def f32_from_bits(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def round_up(scale: float, dtype: str) -> float:
    """The smallest value of `dtype` that is not below `scale` (Burn's scale_to_dtype).

    Read: crates/burn-std/src/tensor/quantization.rs:364-368 (scale_to_dtype), and
    `ScaleDtype::round_up` in cubecl-quant's scheme.rs; each dtype's grid (its significant bits,
    its largest value, its subnormals) is its format's, f16, bf16 or UE4M3.
    The visible checks: f32, the worked UE4M3 example, f16 of 0.1, scales past the maximum, and
    a UE4M3 block scheme of the model storing your rounded scales.
    """
    # TODO
    raise NotImplementedError("round_up")
