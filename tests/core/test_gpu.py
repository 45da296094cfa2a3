"""The `xp` backend on CuPy: real-GPU tests (marked `gpu`), and the same code paths driven by a
CuPy-shaped stand-in so that they are exercised on machines without a GPU too."""

from __future__ import annotations

import types

import numpy as np
import pytest

from routerlab.core import DType, DTypeError, Runtime, TensorData, parse_device
from routerlab.core.base.gpu import gpu_status
from routerlab.core.router.backend import Backend


def cupy_like() -> tuple[types.ModuleType, list[int]]:
    """numpy dressed as CuPy: `cuda.Device(i)` as a context manager and `asnumpy`; records the
    device every allocation ran under."""
    current: list[int] = [0]
    seen: list[int] = []

    class FakeDevice:
        def __init__(self, index: int) -> None:
            self.index = index
            self._previous: list[int] = []

        def __enter__(self) -> FakeDevice:
            self._previous.append(current[0])
            current[0] = self.index
            return self

        def __exit__(self, *exc: object) -> None:
            current[0] = self._previous.pop()

    def allocating(fn):  # type: ignore[no-untyped-def]
        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            seen.append(current[0])
            return fn(*args, **kwargs)
        return wrapper

    xp = types.ModuleType("fakecupy")
    for name in ("add", "multiply", "matmul", "reshape", "swapaxes", "ascontiguousarray"):
        setattr(xp, name, getattr(np, name))
    xp.asarray = allocating(np.asarray)
    xp.array = allocating(np.array)
    xp.asnumpy = np.asarray
    xp.cuda = types.SimpleNamespace(Device=FakeDevice)
    return xp, seen


def test_backend_code_paths_for_cupy_without_a_gpu() -> None:
    xp, seen = cupy_like()
    gpu1 = Backend(parse_device("cuda:1"), xp)
    gpu0 = Backend(parse_device("peer2/cuda:0"), xp)
    a = gpu1.from_data(TensorData.from_array([[1.0, 2.0], [3.0, 4.0]], DType.F32))
    b = gpu1.matmul(a, gpu1.add(a, a))
    moved = gpu0.float_to_device(b)
    assert seen == [1, 0] and moved.device == gpu0.device and moved.array is not b.array
    data = gpu0.float_into_data(moved)
    assert data.to_numpy().tolist() == [[14.0, 20.0], [30.0, 44.0]]
    assert (gpu1.bytes_copied, gpu0.bytes_copied) == (16, 32)
    with pytest.raises(DTypeError, match="CuPy has no bfloat16"):
        gpu1.from_data(TensorData.from_array([1.0], DType.BF16))


gpu = pytest.mark.skipif(not gpu_status().usable, reason=f"no usable GPU: {gpu_status().reason}")


def gpu_runtime() -> Runtime:
    return Runtime(["cpu:0", "cuda:0", "peer2/cuda:0"])


@pytest.mark.gpu
@gpu
def test_ops_on_a_real_gpu() -> None:
    import cupy

    rt = gpu_runtime()
    x = rt.tensor([[1.0, 2.0], [3.0, 4.0]], "cuda:0", "f32")
    y = rt.matmul(rt.clone(x), rt.add(x, rt.clone(x)))
    handle = rt.session("cuda:0").interpreter.handles.get_handle_ref(y.id)
    assert isinstance(handle.array, cupy.ndarray)
    assert rt.read(y).tolist() == [[14.0, 20.0], [30.0, 44.0]]
    assert rt.read(rt.swap_dims(rt.reshape(y, (2, 2)), 0, 1)).tolist() == [[14.0, 30.0],
                                                                             [20.0, 44.0]]


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("dtype", ["f32", "f16", "i32", "u8", "bool"])
def test_transfers_through_a_real_gpu(dtype: str) -> None:
    """cpu -> cuda is a bridge (two backends), cuda -> peer2/cuda goes through bytes."""
    rt = gpu_runtime()
    values = np.array([[1, 0, 1], [0, 1, 1]])
    x = rt.tensor(values, "cpu:0", dtype)
    on_gpu = rt.to_device(x, "cuda:0")
    remote = rt.to_device(on_gpu, "peer2/cuda:0")
    back = rt.to_device(remote, "cpu:0")
    assert rt.read(back).tolist() == values.astype(DType.parse(dtype).numpy).tolist()
    assert rt.handle_ids("cuda:0") == [] and rt.handle_ids("peer2/cuda:0") == []


@pytest.mark.gpu
@gpu
def test_bf16_is_refused_on_a_real_gpu_with_nothing_changed() -> None:
    rt = gpu_runtime()
    with pytest.raises(DTypeError, match="bfloat16"):
        rt.tensor([1.0], "cuda:0", "bf16")
    assert rt.handle_ids("cuda:0") == []
