"""NdArray's per-build quantize acceptance and its `q_from_data` arrival rule, cell by cell.

Burn: `crates/burn-ndarray/src/ops/qtensor.rs:104-169` (quantize: Q8F/Q8S/Q2S per tensor, Q8F/Q8S
per block; with `export_tests` any Q8/Q4/Q2, both levels; Native store only) and :36-72
(`q_from_data`: Q8F/Q8S only, whatever the features).
"""

from __future__ import annotations

import numpy as np
import pytest

from routerlab.core.base.errors import BurnUnimplemented
from routerlab.core.base.profiles import Profile
from routerlab.core.quant import parse_scheme, quantize_dynamic
from routerlab.core.quant.backend_rules import accepts_arrival, check_arrival

INTEGER = ("q8f", "q8s", "q4f", "q4s", "q2f", "q2s")
PLAIN_PER_TENSOR = {"q8f", "q8s", "q2s"}
PLAIN_PER_BLOCK = {"q8f", "q8s"}
X = np.linspace(-1.0, 1.0, 16, dtype=np.float32)


@pytest.mark.parametrize("value", INTEGER)
@pytest.mark.parametrize("block", ["", ":block=8"])
def test_ndarray_builds_quantize_exactly_their_arms(value: str, block: str) -> None:
    scheme = value + block
    allowed = PLAIN_PER_BLOCK if block else PLAIN_PER_TENSOR
    wide = quantize_dynamic(X, scheme, profile=Profile.NDARRAY_TESTS)
    if value in allowed:
        plain = quantize_dynamic(X, scheme, profile=Profile.NDARRAY)
        assert plain.bit_equal(wide)  # one arithmetic, two acceptance sets
        return
    with pytest.raises(BurnUnimplemented) as refused:
        quantize_dynamic(X, scheme, profile=Profile.NDARRAY)
    assert refused.value.message.startswith(
        f"not implemented: Quantization not supported for scheme QuantScheme {{ value: "
        f"{value.upper()}, store: Native, mode: Symmetric")
    assert refused.value.source == "crates/burn-ndarray/src/ops/qtensor.rs:169"


@pytest.mark.parametrize("value", [*INTEGER, "e4m3", "e5m2", "e2m1"])
@pytest.mark.parametrize("profile", list(Profile))
def test_only_q8_arrives_on_ndarray(value: str, profile: Profile) -> None:
    scheme = parse_scheme(value).resolve(profile)
    expected = value in ("q8f", "q8s") if profile.is_ndarray else True
    assert accepts_arrival(profile, scheme) is expected
    if expected:
        check_arrival(profile, scheme)
        return
    with pytest.raises(BurnUnimplemented) as refused:
        check_arrival(profile, scheme)
    assert refused.value.message == (
        f"not implemented: from_data not supported for scheme QuantScheme {{ value: "
        f"{value.upper()}, store: Native, mode: Symmetric, tensor: None, block: None }}")
