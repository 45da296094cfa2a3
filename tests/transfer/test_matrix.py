"""The transfer matrix: every dtype × path × policy × source status, registries and values.

dtypes: float, int, uint, bool, and each quantized value type (Q8F/Q8S/Q4F/Q4S/Q2F/Q2S) in each
store (Native on Flex devices, PackedU32 on CubeCL devices). Paths: same device, same-peer
(`local`), cross-peer on the same backend (`bytes`) and on another backend (`bytes-x`: still
bytes, the router never looks at the backend), Dispatch between backends (`dispatch`), and the
channel trait's default `change_client_backend` (`bridge`). A peer hosts one backend, so every
other backend lives on its own peer. The oracle below is written from Burn's source (docs/burn.md),
not from the implementation: what each combination must do, the registry of both devices
afterwards, and the values read back.
"""

from __future__ import annotations

import numpy as np
import pytest

from routerlab.core import BurnPanic, BurnTodo, BurnUnimplemented, Runtime
from routerlab.core.base.errors import TransferRejected
from routerlab.core.quant.debug import scheme_debug
from routerlab.teaching.measure import held

VALUES = ["q8f", "q8s", "q4f", "q4s", "q2f", "q2s"]
PLAIN = {"f32": [[1.5, -2.0, 0.25, 8.0]], "i64": [[-5, 6, 7, 0]], "u8": [[0, 200, 255, 7]],
         "bool": [[True, False, True, True]]}
DTYPES = [*PLAIN, *(f"{v}:store={s}" for v in VALUES for s in ("native", "packed-u32"))]
PATHS = ["same", "local", "bytes", "bytes-x", "dispatch", "bridge"]
POLICIES = ["native", "dequantize", "requantize", "reject", "legacy"]
FLEX = {"same": "cpu:0", "local": "cpu:1", "bytes": "peer2/cpu:0", "bytes-x": "peer3/cpu:0@cubecl",
        "dispatch": "peer3/cpu:0@cubecl", "bridge": "peer3/cpu:0@cubecl"}
CUBECL = {"same": "cpu:0@cubecl", "local": "cpu:1@cubecl", "bytes": "peer2/cpu:0@cubecl",
          "bytes-x": "peer3/cpu:0", "dispatch": "peer3/cpu:0", "bridge": "peer3/cpu:0"}
CROSS = ("bytes-x", "dispatch", "bridge")
"""The paths between two backends."""
X = np.random.default_rng(7).uniform(-1, 1, (2, 16)).astype(np.float32)
X[0, 0] = -1.0  # the negative extreme: F-values recalibrate to a larger scale


def _devices(dtype: str) -> dict[str, str]:
    return CUBECL if dtype.endswith("packed-u32") else FLEX


def _expected_failure(dtype: str, path: str, policy: str) -> tuple[type, str, str] | None:
    """(error class, Burn's exact message, Burn source) for the combinations that must fail."""
    if path == "same":
        return None
    quantized = dtype not in PLAIN
    if quantized and policy == "reject":
        return TransferRejected, "", ""
    if policy != "legacy":
        return None
    interp = "crates/burn-router/src/interpreter.rs"
    if path == "bridge":
        if quantized or dtype == "u8":
            return BurnUnimplemented, "not implemented", "crates/burn-router/src/channel/base.rs:58"
        return (BurnPanic, "Can't register manually a tensor on a remote channel.",
                "crates/burn-remote/src/client/channel.rs:42")
    if not (quantized or dtype == "u8"):
        return None
    if path == "dispatch":
        return (BurnUnimplemented, "not implemented",
                "crates/burn-router/src/ops/qtensor.rs:45-46") if quantized else \
            (BurnUnimplemented, "not implemented", f"{interp}:2163")
    if path in ("bytes", "bytes-x"):
        return (BurnTodo, "not yet implemented", f"{interp}:2161") if quantized else \
            (BurnUnimplemented, "not implemented", f"{interp}:2163")
    return BurnTodo, None, f"{interp}:98"  # message depends on the dtype: checked below


@pytest.mark.parametrize("shared", [False, True], ids=["unique", "shared"])
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_transfer_matrix(dtype: str, path: str, policy: str, shared: bool) -> None:
    devices = _devices(dtype)
    source, target = devices["same"], devices[path]
    rt = Runtime(list(dict.fromkeys(devices.values())))
    forced = None if path == "bytes-x" else path
    quantized = dtype not in PLAIN
    if quantized:
        tensor = rt.quantize(rt.tensor(X, source, "f32"), dtype)
        before = held(rt, tensor).tensor
    else:
        tensor = rt.tensor(PLAIN[dtype], source, dtype)
    keep = rt.clone(tensor) if shared else None
    ids = {d: rt.handle_ids(d) for d in (source, target)}
    failure = _expected_failure(dtype, path, policy)

    if failure is not None:
        error, message, where = failure
        with pytest.raises(error) as raised:
            rt.to_device(tensor, target, forced, policy=policy)
        dies = (path in ("local", "bytes", "bytes-x") or
                (path == "dispatch" and not quantized)) and error is not TransferRejected
        if not dies:
            assert {d: rt.handle_ids(d) for d in (source, target)} == ids
        assert tensor.alive and (keep is None or keep.alive)
        if error is TransferRejected:
            text = str(raised.value)
            assert all(part in text for part in (str(tensor.dtype), source, target, "native",
                                                 "dequantize"))
            assert rt.session(source).ended is None and rt.session(target).ended is None
            return
        burn = raised.value
        if message is None:
            debug = f"QFloat({scheme_debug(tensor.dtype.scheme)})" if quantized else "U8"
            message = f"not yet implemented: Local transfer of {debug} tensors is not supported yet"
        assert (burn.message, burn.source) == (message, where)
        assert (rt.session(source).ended is not None) == dies
        if dies:  # a panicked worker unwinds: its handles go with it
            assert rt.handle_ids(source) == [] and rt.handle_ids(target) == ids[target]
        if path == "local":
            assert f"target session {target} would wait forever for transfer" in str(burn)
        elif path in ("bytes", "bytes-x"):  # over Iroh the download gives up, the session goes on
            assert f"target session {target} gave up waiting" in str(burn)
            assert rt.session(target).ended is None
        return

    moved = rt.to_device(tensor, target, forced, policy=policy)
    if path == "same":
        assert moved is tensor and rt.handle_ids(source) == ids[source]
        return
    kept = ids[source] if shared else [i for i in ids[source] if i != int(tensor.id)]
    assert rt.handle_ids(source) == kept
    assert rt.handle_ids(target) == [int(moved.id)]
    assert str(moved.device) == target
    assert int(moved.id) not in ids[source]
    if not quantized:
        assert rt.read(moved).tolist() == PLAIN[dtype]
        return
    after = rt.read_quantized(moved)
    assert moved.held == after.dtype and moved.dtype == tensor.dtype  # IR dtype as asked
    if keep is not None:
        assert held(rt, keep).tensor is before  # the clone still reads the untouched source
    if policy in ("native", "dequantize"):
        assert np.array_equal(after.q(), before.q())
        assert after.scales.tobytes() == before.scales.tobytes()
        if path not in CROSS:
            assert after.bit_equal(before)
    else:
        src = before.dequantize(rt.session(source).device.profile)
        dst = after.dequantize(rt.session(target).device.profile)
        step = float(after.scales_f32().max())
        assert np.abs(dst - src).max() <= step * 1.0001
