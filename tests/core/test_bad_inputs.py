"""Every bad input gives one clear error and leaves every registry and clone count as it was."""

from __future__ import annotations

import re

import pytest

from routerlab.core import (
    READ_ONLY,
    AddOp,
    DeviceError,
    DType,
    GpuUnavailableError,
    HandleKind,
    Kind,
    MissingHandleError,
    ReadOp,
    RouterLabError,
    Runtime,
    ShapeError,
    TensorIr,
    UnknownTensorError,
    UseAfterDropError,
)
from routerlab.core.base.errors import BurnPanic, DTypeError
from routerlab.core.base.gpu import gpu_status


@pytest.fixture
def populated(rt: Runtime):  # type: ignore[no-untyped-def]
    a = rt.tensor([[1.0, 2.0], [3.0, 4.0]], "cpu:0")
    b = rt.tensor([[1.0, 2.0, 3.0]], "cpu:0")
    c = rt.tensor([1.0], "cpu:1")
    keep = rt.clone(a)
    return rt, a, b, c, keep


def counts(*tensors):  # type: ignore[no-untyped-def]
    return [(t.count, t.alive) for t in tensors]


@pytest.mark.parametrize("device", ["cpu:9", "peer3/cpu:0"])
def test_unknown_device(populated, snapshot, device: str) -> None:  # type: ignore[no-untyped-def]
    rt, a, *_ = populated
    before, seen = snapshot(rt), counts(a)
    with pytest.raises(DeviceError, match=f"unknown device {device}; this runtime has"):
        rt.to_device(a, device)
    assert snapshot(rt) == before and counts(a) == seen


@pytest.mark.parametrize("text", ["cpu", "cpu:x", "tpu:0", "cpu:0@fast", "/cpu:0", ""])
def test_malformed_device(populated, snapshot, text: str) -> None:  # type: ignore[no-untyped-def]
    rt, a, *_ = populated
    before = snapshot(rt)
    with pytest.raises(DeviceError):
        rt.tensor([1.0], text)
    assert snapshot(rt) == before


def test_unknown_tensor_id(populated, snapshot) -> None:  # type: ignore[no-untyped-def]
    rt, *_ = populated
    before = snapshot(rt)
    with pytest.raises(UnknownTensorError, match="no tensor with id 99 was ever created"):
        rt.explain(99)
    with pytest.raises(UnknownTensorError):
        rt.submit("cpu:0", ReadOp(TensorIr(99, (1,), READ_ONLY, DType.F32)))
    assert snapshot(rt) == before


def test_use_after_free_gives_burns_message(populated, snapshot):  # type: ignore[no-untyped-def]
    """crates/burn-ir/src/handle.rs:93: the id was freed by a ReadWrite use."""
    rt, a, b, c, keep = populated
    freed = c.id
    rt.drop(c)
    before = snapshot(rt)
    with pytest.raises(MissingHandleError) as info:
        rt.submit("cpu:1", ReadOp(TensorIr(freed, (1,), READ_ONLY, DType.F32)))
    assert info.value.message == f"Should have handle for tensor TensorId {{ value: {int(freed)} }}"
    assert snapshot(rt) == before


def test_use_after_consume_and_double_drop(populated, snapshot) -> None:  # type: ignore[no-untyped-def]
    rt, a, b, c, keep = populated
    rt.drop(c)
    before = snapshot(rt)
    with pytest.raises(UseAfterDropError):
        rt.drop(c)
    with pytest.raises(UseAfterDropError):
        rt.read(c)
    with pytest.raises(UseAfterDropError, match="passed twice"):
        rt.add(a, a)
    assert snapshot(rt) == before and counts(a, keep) == [(2, True), (2, True)]


def test_op_on_not_init_tensor(populated, snapshot) -> None:  # type: ignore[no-untyped-def]
    """A NotInit input status panics (crates/burn-ir/src/handle.rs:106-108)."""
    rt, a, *_ = populated
    before = snapshot(rt)
    out = rt.client("cpu:0").create_empty_handle()
    bad = TensorIr(a.id, a.shape, READ_ONLY, DType.F64).__class__.uninit(a.id, a.shape, DType.F64)
    with pytest.raises(BurnPanic, match="Cannot get uninitialized tensor"):
        rt.submit("cpu:0", AddOp(bad, bad, TensorIr.uninit(out, a.shape, DType.F64)))
    # the step is undone everywhere; cpu:0's worker panicked and unwound, freeing its handles
    # (crates/burn-remote/src/server/worker.rs:149-181)
    assert snapshot(rt) == {**before, "cpu:0": {}} and rt.session("cpu:0").ended


@pytest.mark.parametrize("op", ["add", "mul", "matmul"])
def test_shape_mismatch(populated, snapshot, op: str) -> None:  # type: ignore[no-untyped-def]
    """[2, 2] and [1, 3] neither broadcast nor multiply; nothing is consumed."""
    rt, a, b, c, keep = populated
    before, seen = snapshot(rt), counts(a, b, keep)
    with pytest.raises(ShapeError, match=op):
        getattr(rt, op)(a, b)
    assert snapshot(rt) == before and counts(a, b, keep) == seen


def test_reshape_to_wrong_element_count(populated, snapshot) -> None:  # type: ignore[no-untyped-def]
    rt, a, *_ = populated
    before = snapshot(rt)
    with pytest.raises(ShapeError, match="4 elements.*cannot become \\[3\\]"):
        rt.reshape(a, (3,))
    assert snapshot(rt) == before and a.alive and a.count == 2


def test_mixed_dtypes_and_bool_arithmetic(populated, snapshot) -> None:  # type: ignore[no-untyped-def]
    rt, a, *_ = populated
    i = rt.tensor([[1, 2], [3, 4]], "cpu:0", "i32")
    m = rt.tensor([True], "cpu:0")
    m2 = rt.clone(m)
    before = snapshot(rt)
    with pytest.raises(DTypeError, match="one dtype"):
        rt.add(a, i)
    with pytest.raises(DTypeError, match="not bool"):
        rt.add(m, m2)
    assert a.alive and i.alive and m.alive and m2.alive and snapshot(rt) == before


def test_inputs_on_two_devices(populated, snapshot) -> None:  # type: ignore[no-untyped-def]
    rt, a, b, c, keep = populated
    before = snapshot(rt)
    with pytest.raises(DeviceError, match="one device"):
        rt.add(a, c)
    assert snapshot(rt) == before and a.alive and c.alive


def test_forced_path_the_topology_cannot_carry(populated, snapshot) -> None:  # type: ignore[no-untyped-def]
    rt, a, *_ = populated
    before = snapshot(rt)
    with pytest.raises(DeviceError, match="one peer"):
        rt.to_device(a, "peer2/cpu:0", path="local")
    with pytest.raises(DeviceError, match="unknown transfer path"):
        rt.to_device(a, "cpu:1", path="teleport")
    assert snapshot(rt) == before and a.count == 2


def test_gpu_without_cupy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cuda device with no usable CuPy/GPU: GpuUnavailableError saying why; nothing created."""
    monkeypatch.setenv("ROUTERLAB_FORCE_NUMPY", "1")
    gpu_status.cache_clear()
    try:
        rt = Runtime()
        x = rt.tensor([1.0], "cpu:0")
        with pytest.raises(GpuUnavailableError, match="cuda:0 is not available"):
            rt.to_device(x, "gpu/cuda:0")
        assert rt.devices == [rt.devices[0]] and x.alive and rt.handle_ids("cpu:0") == [0]
    finally:
        gpu_status.cache_clear()  # the next caller probes again, without the forced answer


def test_server_side_failure_rolls_back_client_counts_and_registries(snapshot) -> None:  # type: ignore[no-untyped-def]
    """A panic in the target session after the source moved its handle out: everything is
    restored (source entry, pending rendezvous, the client's count and liveness)."""
    rt = Runtime(["cpu:0", "cpu:1"])
    x = rt.tensor([1, 2], "cpu:0", "u32")
    before = snapshot(rt)
    with pytest.raises(BurnPanic):
        rt.to_device(x, "cpu:1", legacy=True)
    # the client and every registry are restored, but the panicked cpu:0 unwound and freed its
    # handles (worker.rs:149-181)
    assert snapshot(rt) == {**before, "cpu:0": {}} and x.alive and x.count == 1
    assert [e.kind for e in rt.trace.read()][-1] == "failed"


@pytest.mark.parametrize("values", [[[1.0], [2.0, 3.0]], ["a", "b"], [None]])
def test_values_that_are_not_a_numeric_array(populated, snapshot, values) -> None:  # type: ignore[no-untyped-def]
    rt, *_ = populated
    before = snapshot(rt)
    with pytest.raises((ShapeError, DTypeError)):
        rt.tensor(values, "cpu:0")
    assert snapshot(rt) == before


def test_reading_with_the_wrong_reader_consumes_nothing(populated, snapshot) -> None:  # type: ignore[no-untyped-def]
    """`read` of a quantized tensor and `read_quantized` of a plain one fail before the read, so
    even `consume=True` leaves the tensor registered and alive."""
    rt, a, *_ = populated
    q = rt.quantize(rt.tensor([1.0, 2.0, 3.0, 4.0], "cpu:1"), "q8s")
    before = snapshot(rt)
    with pytest.raises(DTypeError, match="no plain array view"):
        rt.read(q, consume=True)
    with pytest.raises(DTypeError, match="read_quantized reads quantized tensors, not f64"):
        rt.read_quantized(a, consume=True)
    assert snapshot(rt) == before and q.alive and a.alive and a.count == 2


@pytest.mark.parametrize(("values", "dtype", "message"), [
    ([300], "u8", r"value 300 is out of range for u8, which holds 0\.\.255"),
    ([-1], "u8", r"value -1 is out of range for u8, which holds 0\.\.255"),
    ([70000], "i16", r"value 70000 is out of range for i16, which holds -32768\.\.32767"),
    ([[1, 2], [3, -129]], "i8", r"value -129 is out of range for i8, which holds -128\.\.127"),
    ([-1], "u64", r"value -1 is out of range for u64, which holds 0\.\.18446744073709551615"),
    ([2**63], "i64", r"value 9223372036854775808 is out of range for i64, which holds "
                     r"-9223372036854775808\.\.9223372036854775807"),
    ([256.0], "u8", r"value 256\.0 is out of range for u8, which holds 0\.\.255"),
    ([1.0, 2.7], "i32", r"value 2\.7 is not an integer, and i32 holds integers only"),
    ([float("nan")], "i32", r"value nan is not a finite number, and i32 holds integers only "
                            r"\(-2147483648\.\.2147483647\)"),
    ([float("inf")], "u8", r"value inf is not a finite number, and u8 holds integers only"),
    ([0, 1, 2], "bool", r"value 2 is not a bool: bool accepts 0, 1, True and False only"),
    ([0.5], "bool", r"value 0\.5 is not a bool: bool accepts 0, 1, True and False only"),
])
def test_values_the_dtype_cannot_hold(populated, snapshot, values, dtype: str,  # type: ignore[no-untyped-def]
                                      message: str) -> None:
    """numpy's cast would wrap (300 as u8 is 44, 70000 as i16 is 4464) or truncate (2.7 as i32
    is 2) without a word; RouterLab refuses before anything is created."""
    rt, *_ = populated
    before = snapshot(rt)
    with pytest.raises(DTypeError, match=f"^{message}"):
        rt.tensor(values, "cpu:0", dtype)
    assert snapshot(rt) == before


@pytest.mark.parametrize(("values", "dtype", "stored"), [
    ([0, 255], "u8", [0, 255]),
    ([-32768, 32767], "i16", [-32768, 32767]),
    ([3.0, -2.0], "i32", [3, -2]),  # integral floats are the integers they spell
    ([2**64 - 1], "u64", [2**64 - 1]),
    ([True, False, 1, 0, 1.0], "bool", [True, False, True, False, True]),
    ([True, False], "u8", [1, 0]),
])
def test_values_at_the_edge_of_the_range_are_kept(rt: Runtime, values, dtype: str,  # type: ignore[no-untyped-def]
                                                  stored) -> None:
    assert rt.read(rt.tensor(values, "cpu:0", dtype)).tolist() == stored


def test_scenario_tensor_step_refuses_a_value_out_of_range() -> None:
    """A scenario's `tensor` step calls `Runtime.tensor`: the same error, nothing registered."""
    from routerlab.core.scenario import parse_scenario, run_scenario

    scenario = parse_scenario('devices = ["cpu:0"]\n[[steps]]\nop = "tensor"\nname = "x"\n'
                              'values = [1, 300]\ndevice = "cpu:0"\ndtype = "u8"\n'
                              'expect_error = "out of range for u8"\n')
    (result,) = run_scenario(scenario)
    assert result.error == "DTypeError: value 300 is out of range for u8, which holds 0..255"
    assert result.registries["cpu:0"].rows == []


def _devices_and_registries(rt: Runtime) -> tuple[list[str], dict[str, object]]:
    return [str(d) for d in rt.devices], {d: v.to_dict() for d, v in rt.registries().items()}


def test_failed_create_leaves_no_new_device_behind() -> None:
    """A runtime without a device list creates a device on first use, but a step that fails
    forgets the device it created."""
    rt = Runtime()
    rt.tensor([1.0], "cpu:0")
    before = _devices_and_registries(rt)
    with pytest.raises(DTypeError, match="out of range for u8"):
        rt.tensor([300], "cpu:7", "u8")
    assert _devices_and_registries(rt) == before == (["cpu:0"], before[1])
    assert len(rt.server.sessions) == 1 and len(rt.journal._containers) == 1


def test_failed_transfer_leaves_no_new_device_behind(snapshot) -> None:  # type: ignore[no-untyped-def]
    """The forced path is refused inside the step, after the target was created: rolled back."""
    rt = Runtime()
    x = rt.tensor([1.0], "cpu:0")
    before, seen = _devices_and_registries(rt), snapshot(rt)
    with pytest.raises(DeviceError, match="path 'local' needs both devices on one peer"):
        rt.to_device(x, "peer2/cpu:0", path="local")
    with pytest.raises(DeviceError, match="path 'local' needs both devices on one peer"):
        rt.plan_transfer(x, "peer3/cpu:0", path="local")
    assert _devices_and_registries(rt) == before and snapshot(rt) == seen
    assert x.alive and x.count == 1 and len(rt.server.sessions) == 1
    y = rt.to_device(x, "peer2/cpu:0")  # the device is still there to be created by a success
    assert [str(d) for d in rt.devices] == ["cpu:0", "peer2/cpu:0"] and rt.read(y).tolist() == [1.0]


def test_failed_server_side_transfer_forgets_the_new_target(snapshot) -> None:  # type: ignore[no-untyped-def]
    """A panic in the source session (legacy uint, crates/burn-router/src/interpreter.rs:98)
    after the new target was created: the target goes; the source's session stays ended, as a
    panicked Burn worker does, its handles freed as the worker unwound."""
    rt = Runtime()
    x = rt.tensor([1, 2], "cpu:0", "u32")
    before = snapshot(rt)
    with pytest.raises(BurnPanic, match="Local transfer of U32 tensors"):
        rt.to_device(x, "cpu:5", legacy=True)
    assert [str(d) for d in rt.devices] == ["cpu:0"] and list(rt.registries()) == ["cpu:0"]
    assert snapshot(rt) == {**before, "cpu:0": {}} and x.alive  # unwound: handles freed


def test_a_peers_first_rendezvous_map_is_rolled_back_too() -> None:
    """The first exposure on a peer creates that peer's rendezvous map inside the step; a failed
    step removes the map along with its entry."""
    rt = Runtime()
    source = rt.session("peer2/cpu:0")

    def expose_then_fail() -> None:
        rt.server.expose_local(source, 0, HandleKind(Kind.FLOAT, None))
        raise RouterLabError("fails after the exposure")

    with pytest.raises(RouterLabError, match="fails after the exposure"):
        rt.atomic("expose", expose_then_fail)
    assert rt.server._local == {} and rt.server.pending_transfers() == 0


def test_tensor_data_of_a_quantized_tensor_names_both_readers(populated) -> None:  # type: ignore[no-untyped-def]
    """`TensorData.to_numpy` says what to do instead, as `Runtime.read` does."""
    rt, *_ = populated
    q = rt.quantize(rt.tensor([1.0, 2.0, 3.0, 4.0], "cpu:1"), "q8s")
    data = rt.read_data(q)
    with pytest.raises(DTypeError, match="^quantized TensorData has no plain array view; use "
                                         "read_quantized or dequantize$"):
        data.to_numpy()


@pytest.mark.parametrize(("values", "dtype", "shown"), [
    ([1.0, 1e300], "f32", "1e+300"), ([70000.0], "f16", "70000.0"), ([1e39], "bf16", "1e+39"),
])
def test_a_finite_value_too_large_for_a_float_dtype_is_refused(values, dtype, shown) -> None:
    """numpy would store infinity without a word; RouterLab says which value does not fit."""
    rt = Runtime(["cpu:0"])
    before = rt.registries()
    with pytest.raises(DTypeError, match=re.escape(f"value {shown} is out of range for {dtype}")):
        rt.tensor(values, "cpu:0", dtype)
    assert rt.registries() == before


def test_infinities_given_as_such_are_kept() -> None:
    rt = Runtime(["cpu:0"])
    x = rt.tensor([float("inf"), -float("inf"), 1.0], "cpu:0", "f32")
    assert rt.read(x).tolist() == [float("inf"), -float("inf"), 1.0]
