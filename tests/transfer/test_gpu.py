"""Quantized and plain transfers on a real GPU through CuPy: H2D, D2H, D2D, every policy.

Marked `gpu` and skipped, with the reason `gpu_status()` gives, where no GPU is usable. The paths
are the CPU ones with the CuPy backend on one end: cpu:0 <-> cuda:0 is a bridge between the numpy
and CuPy backends (and between the Flex and CubeCL profiles: 4-bit values are repacked into u32
words on the way up), cuda:0 -> cuda:1 a same-peer device-to-device copy, cuda:0 -> peer2/cuda:0
canonical bytes through the host.
"""

from __future__ import annotations

import numpy as np
import pytest

from routerlab.core import Runtime
from routerlab.core.base.gpu import gpu_status
from routerlab.core.quant.arrays import to_host
from routerlab.teaching.measure import held

STATUS = gpu_status()
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not STATUS.usable, reason=f"no usable GPU: {STATUS.reason}")]
X = np.random.default_rng(3).uniform(-2, 2, (4, 32)).astype(np.float32)
PATHS = [("cpu:0", "cuda:0"), ("cuda:0", "cpu:0"), ("cuda:0", "peer2/cuda:0"),
         ("cuda:0", "cuda:1")]


def _runtime(source: str, target: str) -> Runtime:
    if "cuda:1" in (source, target) and STATUS.device_count < 2:
        pytest.skip(f"cuda:1 needs a second GPU; {STATUS.device_count} found")
    return Runtime([source, target])


@pytest.mark.parametrize(("source", "target"), PATHS)
@pytest.mark.parametrize("dtype", ["f32", "f16", "i64", "i8", "u8", "u32", "bool"])
def test_plain_dtypes_cross_every_gpu_path(source: str, target: str, dtype: str) -> None:
    rt = _runtime(source, target)
    values = np.round(np.abs(X) * 10) if dtype != "bool" else X > 0
    tensor = rt.tensor(values, source, dtype)
    expected = rt.read(tensor)
    moved = rt.to_device(tensor, target)
    assert np.array_equal(rt.read(moved), expected)
    assert rt.handle_ids(source) == []


@pytest.mark.parametrize(("source", "target"), PATHS)
@pytest.mark.parametrize("scheme", ["q8s", "q4s", "q2f", "q8f:block=16:scale=f16:global=f32"])
@pytest.mark.parametrize("policy", ["native", "dequantize", "requantize"])
def test_quantized_cross_every_gpu_path(source: str, target: str, scheme: str,
                                        policy: str) -> None:
    rt = _runtime(source, target)
    tensor = rt.quantize(rt.tensor(X, source, "f32"), scheme)
    before = held(rt, tensor).tensor
    moved = rt.to_device(tensor, target, policy=policy)
    after = held(rt, moved).tensor
    assert moved.dtype == after.dtype and type(after.values).__module__.startswith(
        "cupy" if target.endswith(("cuda:0", "cuda:1")) else "numpy")
    if policy == "requantize":
        step = float(after.scales_f32().max()) * (float(after.global_scale or 1.0))
        assert np.abs(to_host(after.dequantize()) - to_host(before.dequantize())).max() <= step
        return
    assert np.array_equal(to_host(after.q()), to_host(before.q()))
    assert after.scales.tobytes() == before.scales.tobytes()
    if policy == "native" and after.scheme == before.scheme:
        assert after.bit_equal(before)


def test_native_gpu_move_copies_values_and_scales_device_to_device() -> None:
    rt = _runtime("cuda:0", "cuda:1")
    tensor = rt.quantize(rt.tensor(X, "cuda:0", "f32"), "q4s")
    before = held(rt, tensor).tensor
    moved = rt.to_device(tensor, "cuda:1")
    after = held(rt, moved).tensor
    assert after.values.device.id == 1 and after.bit_equal(before)
    assert rt.session("cuda:1").interpreter.backend.bytes_copied >= after.nbytes
