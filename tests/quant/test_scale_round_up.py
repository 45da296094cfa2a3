"""Burn's round-UP of stored scales (reference §11.2).

Ported: `scale_to_dtype_survives_the_codec` and `encoded_scale_width_matches_scale_size`
(crates/burn-std/src/tensor/quantization.rs), the UE4M3 worked example 9/254 → 0.0390625 (reference
§11.2, cubecl-common scheme.rs `round_up`). Independently checked: the result is the smallest value
of the dtype (enumerated with ml_dtypes) that is not below the input.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routerlab.core.base.errors import QuantizationError
from routerlab.core.quant import ScaleDtype, round_up
from routerlab.core.quant.scale_dtype import storage_dtype, to_f32, to_storage

F32 = np.float32
NARROW = (ScaleDtype.F16, ScaleDtype.BF16, ScaleDtype.UE4M3)
ALL = (ScaleDtype.F32, *NARROW)


def _grid(dtype: ScaleDtype) -> np.ndarray:
    """Every finite non-negative value of `dtype`, sorted (from all its bit patterns)."""
    bits = np.arange(
        256 if dtype is ScaleDtype.UE4M3 else 65536,
        dtype=np.uint8 if dtype is ScaleDtype.UE4M3 else np.uint16,
    )
    with np.errstate(invalid="ignore"):
        values = bits.view(storage_dtype(dtype)).astype(np.float64)
    return np.unique(values[np.isfinite(values) & (values >= 0)])


GRIDS = {dtype: _grid(dtype) for dtype in NARROW}


def _expected(s: np.ndarray, dtype: ScaleDtype) -> np.ndarray:
    grid = GRIDS[dtype]
    index = np.minimum(np.searchsorted(grid, s.astype(np.float64), side="left"), grid.size - 1)
    return grid[index].astype(F32)


def test_ue4m3_worked_example() -> None:
    """9/254 ≈ 0.035433 is not an e4m3 value; rounding up (not to nearest) gives 0.0390625."""
    scale = F32(9) / F32(254)
    assert round_up([scale], ScaleDtype.UE4M3)[0] == F32(0.0390625)
    assert float(ml_dtypes.float8_e4m3fn(scale)) == 0.03515625  # a cast rounds to nearest, below


@pytest.mark.parametrize("dtype", NARROW)
def test_round_up_is_the_smallest_representable_not_below(dtype: ScaleDtype) -> None:
    rng = np.random.default_rng(7)
    top = dtype.max_representable
    s = np.concatenate(
        [
            GRIDS[dtype].astype(F32),  # already on the grid
            (rng.random(20000) * min(top, 1e6)).astype(F32),
            np.exp(rng.uniform(-100, np.log(min(top, 1e30)), 20000)).astype(F32),
            np.array([0.0, 1e-30, 2.0**-126, 2.0**-149], F32),
        ]
    )
    s = s[s < F32(top)]
    np.testing.assert_array_equal(round_up(s, dtype), _expected(s, dtype))


@settings(max_examples=300, deadline=None)
@given(
    st.floats(0.0, float(np.float32(3e38)), width=32, allow_subnormal=True).map(float),
    st.sampled_from(NARROW),
)
def test_round_up_property(scale: float, dtype: ScaleDtype) -> None:
    rounded = round_up([scale], dtype)[0]
    top = F32(dtype.max_representable)
    if F32(scale) >= top:
        assert rounded == top
    else:
        assert rounded >= F32(scale)
        assert rounded == _expected(np.array([scale], F32), dtype)[0]


def test_scale_to_dtype_survives_the_codec() -> None:
    """burn-std quantization.rs: saturating (500), e4m3 subnormal (1e-3) and underflowing (7.7e-4)
    scales; the codec moves no rounded scale, and no scale below 500 is rounded down."""
    scales = np.array([0.5, 0.3, 1.0 / 3.0, 500.0, 1e-3, 7.7e-4], F32)
    for dtype in ALL:
        rounded = round_up(scales, dtype)
        np.testing.assert_array_equal(to_f32(to_storage(rounded, dtype)), rounded)
        below = scales < 500
        assert (rounded[below] >= scales[below]).all()
    assert round_up([500.0], ScaleDtype.UE4M3)[0] == 448
    assert round_up([7.7e-4], ScaleDtype.UE4M3)[0] == F32(2.0**-9)


def test_encoded_scale_width_matches_scale_size() -> None:
    """burn-std quantization.rs: encoded_scale_width_matches_scale_size."""
    scales = np.array([0.5, 0.25, 0.125], F32)
    for dtype in ALL:
        assert len(to_storage(scales, dtype).tobytes()) == dtype.size * scales.size


def test_nan_and_f32_pass_through() -> None:
    assert np.isnan(round_up([np.nan], ScaleDtype.F16)[0])
    s = np.array([0.1, 3.3e-39], F32)
    np.testing.assert_array_equal(round_up(s, ScaleDtype.F32), s)


def test_ue8m0_is_refused_as_burn_does() -> None:
    with pytest.raises(QuantizationError, match="UE8M0 scales are not yet supported"):
        round_up([1.0], ScaleDtype.UE8M0)
    with pytest.raises(QuantizationError, match="UE8M0"):
        storage_dtype(ScaleDtype.UE8M0)
