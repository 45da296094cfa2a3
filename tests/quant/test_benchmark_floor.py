"""The floor `benchmarks/quantize.py` sets torch against does a quantizer's reads and writes: it
converts every f32 of the input to int8 (truncating, as `astype` does), on the same thread split
as `quantize`, with numba's loop or numpy's cast alike."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from routerlab.core.quant import kernels

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import quantize as bench  # noqa: E402


@pytest.mark.parametrize("numba", [True, False])
def test_the_convert_only_floor_converts_every_value(numba: bool,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    if numba and kernels.fused_module() is None:
        pytest.skip("numba is not installed (the optional `fast` extra)")
    if not numba:
        monkeypatch.setattr(kernels, "_fused", None)
        monkeypatch.setattr(bench, "fused_module", lambda: None)
    monkeypatch.setattr(kernels, "PARALLEL_MIN", 8)  # several pieces, on both threads
    x = np.random.default_rng(3).uniform(-127, 127, 1000).astype(np.float32)
    assert np.array_equal(bench.convert_only(x)(), x.astype(np.int8))
