"""User-typed tensors (`routerlab.core.quant.inputs`): every bad input is one `RouterLabError`,
never a numpy exception or a numpy warning."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from routerlab.core.base.errors import QuantizationError, ShapeError
from routerlab.core.quant import inputs
from routerlab.core.quant.inputs import MAX_ELEMENTS, parse_shape, random_tensor, tensor_from


def test_shapes_up_to_the_element_limit_parse() -> None:
    assert MAX_ELEMENTS == 2**31
    assert parse_shape("65536,32768") == (65536, 32768)  # exactly 2**31, not allocated here
    with pytest.raises(ShapeError, match="has 2,147,483,649 elements; RouterLab takes at most"):
        parse_shape(str(MAX_ELEMENTS + 1))
    with pytest.raises(ShapeError, match="takes at most"):
        parse_shape("99999999999999999999999")  # past int64: refused, not a numpy OverflowError


def test_a_negative_seed_is_refused() -> None:
    with pytest.raises(QuantizationError, match=r"--seed must be >= 0 .*got -1"):
        random_tensor("4", -1, None, None)
    assert random_tensor("2,3", 0, None, None).shape == (2, 3)


def test_a_failed_allocation_is_a_quantization_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class Exhausted:
        def standard_normal(self, *args: object, **kwargs: object) -> np.ndarray:
            raise MemoryError

    monkeypatch.setattr(inputs.np.random, "default_rng", lambda seed: Exhausted())
    with pytest.raises(QuantizationError, match=r"not enough memory .*\[4096, 4096\] \(0.1 GiB"):
        random_tensor("4096,4096", 1, None, None)


def test_values_beyond_f32_are_refused_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy RuntimeWarning would fail the test
        with pytest.raises(QuantizationError, match="beyond f32's range"):
            tensor_from("[1, 1e39]", None)
        with pytest.raises(QuantizationError, match="beyond f32's range"):
            tensor_from("[-1e39]", None)
    assert tensor_from("[3.4e38]", None).dtype == np.float32
