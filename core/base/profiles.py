"""Backend behaviour profiles: the three ways Burn's backends quantize.

Burn's CPU and GPU backends agree on the formula `clamp(round(x / s), a, b)` but not on the
arithmetic (docs/burn.md, "Quantization arithmetic"): NdArray divides and rounds half away from
zero, Flex multiplies by the reciprocal (so it can differ by one at near-ties) and CubeCL's kernels
divide and round half to even. They also default to different stores (docs/burn.md, "Schemes").
A RouterLab device carries one profile, and every quantize/dequantize on it follows that profile's
knobs.

`ndarray-tests` is NdArray built with its `export_tests` feature, the build Burn's own backend
tests run: the same arithmetic, but it also quantizes Q4F/Q4S/Q2F per tensor and any Q4/Q2 per
block (`crates/burn-ndarray/src/ops/qtensor.rs:111-122, 141-150`), so the test vectors taken from
Burn's suite stay reproducible.
"""

from __future__ import annotations

from dataclasses import dataclass

from .choices import Choice


@dataclass(frozen=True)
class ProfileSpec:
    """The knobs that differ between Burn backends, each with the Burn file that sets it."""

    divide: bool
    """`x / s` (True) or `x * (1 / s)` (False, Flex)."""
    half_to_even: bool
    """Round ties to even (CubeCL `rint`) instead of away from zero (Rust `f32::round`)."""
    zero_scale: str
    """What replaces a zero scale: `"0.1"` (NdArray), `"min_positive"` (Flex: each level rounded
    up, then a zero/non-finite one replaced by `scale_to_dtype(f32::MIN_POSITIVE)`) or `"none"`
    (CubeCL: nothing guards the kernel's `x / s`; `0 / 0` is NaN, which the model casts to 0)."""
    default_store: str
    """The store a scheme gets when the user leaves it out: `"native"` or `"packed-u32"`."""
    source: str


class Profile(Choice, noun="backend profile"):
    """A Burn backend whose quantization arithmetic a device reproduces."""

    NDARRAY = "ndarray"
    NDARRAY_TESTS = "ndarray-tests"
    FLEX = "flex"
    CUBECL = "cubecl"

    @property
    def spec(self) -> ProfileSpec:
        return _SPECS[self]

    @property
    def is_ndarray(self) -> bool:
        """NdArray, either build: the arithmetic and the arrival rule are the same."""
        return self in (Profile.NDARRAY, Profile.NDARRAY_TESTS)


_SPECS = {
    Profile.NDARRAY: ProfileSpec(True, False, "0.1", "native",
                                 "crates/burn-ndarray/src/ops/quantization.rs:78-146"),
    Profile.NDARRAY_TESTS: ProfileSpec(True, False, "0.1", "native",
                                       "crates/burn-ndarray/src/ops/quantization.rs:78-146"),
    Profile.FLEX: ProfileSpec(False, False, "min_positive", "native",
                              "crates/burn-flex/src/ops/qtensor.rs:144-201"),
    Profile.CUBECL: ProfileSpec(True, True, "none", "packed-u32",
                                "cubek@b535c9a:crates/cubek-quant/src/quantize.rs:19-31"),
}

DEFAULT_CPU_PROFILE = Profile.FLEX
"""Flex is Burn's current CPU backend at 2c06be3 (NdArray is deprecated)."""
DEFAULT_GPU_PROFILE = Profile.CUBECL
