"""The same quantization code on CuPy arrays gives the same bits as on numpy.

Skipped (with the reason) where CuPy or a usable GPU is missing; `routerlab.core.base.gpu` decides.
"""

from __future__ import annotations

import numpy as np
import pytest

from routerlab.core.base.gpu import gpu_status
from routerlab.core.base.profiles import Profile
from routerlab.core.quant import from_bytes, quantize, quantize_dynamic

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_status().usable, reason=gpu_status().reason),
]

SCHEMES = [
    "q8s",
    "q8f:block=4x16",
    "q4s:block=32:scale=f16",
    "q2s",
    "q8s:block=2x16:scale=ue4m3:global=f32",
]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("profile", list(Profile))
def test_cupy_matches_numpy_bit_for_bit(scheme: str, profile: Profile) -> None:
    import cupy

    x = np.random.default_rng(5).standard_normal((8, 64)).astype(np.float32)
    if profile is not Profile.CUBECL:
        scheme += ":store=native"
    host = quantize_dynamic(x, scheme, profile=profile)
    device = quantize_dynamic(cupy.asarray(x), scheme, profile=profile)
    assert isinstance(device.values, cupy.ndarray)
    assert device.bit_equal(host)
    assert device.to_bytes() == host.to_bytes()
    np.testing.assert_array_equal(
        cupy.asnumpy(device.dequantize(profile)), np.asarray(host.dequantize(profile))
    )
    static = quantize(
        cupy.asarray(x), scheme, host.scales_f32(), host.global_scale, profile=profile
    )
    assert static.bit_equal(host)


def test_moving_between_array_modules_keeps_every_bit() -> None:
    import cupy

    x = np.linspace(-3, 3, 256, dtype=np.float32).reshape(4, 64)
    host = quantize_dynamic(x, "q4s:block=32:scale=ue4m3", profile=Profile.CUBECL)
    device = host.to_module(cupy)
    assert isinstance(device.values, cupy.ndarray) and device.bit_equal(host)
    back = device.to_module(np)
    assert isinstance(back.values, np.ndarray) and back.bit_equal(host)
    assert from_bytes(device.to_bytes(), device.shape, device.scheme).bit_equal(host)
