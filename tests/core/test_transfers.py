"""Transfer paths, the rendezvous, panics, deadlocks and the quantized arms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from routerlab.core import (
    READ_ONLY,
    BurnPanic,
    BurnTodo,
    BurnUnimplemented,
    DeadlockError,
    DequantizeOp,
    Device,
    DType,
    ExtensionMissingError,
    HandleKind,
    Kind,
    Policy,
    Primitive,
    Profile,
    QFloat,
    QuantizeOp,
    RegisterLocalOp,
    RouterLabError,
    Runtime,
    SessionEnded,
    TensorData,
    TensorInterpreter,
    TensorIr,
    TransferRequest,
    make_backend,
    parse_device,
)
from routerlab.core.router.interpreter import burn_debug
from routerlab.core.router.ir import READ_WRITE, UnaryOp

Q8 = QFloat("q8s-test")


class FakeQuant:
    """A stand-in quantization extension: int8 values with the QFloat dtype, moved natively."""

    def quantize(self, interp, op):  # type: ignore[no-untyped-def]
        x = interp.handles.get_tensor_handle(op.tensor)
        q = np.clip(np.round(x.array), -128, 127).astype(np.int8)
        interp.handles.register(op.out.id, Primitive(q, op.out.dtype, interp.device))

    def dequantize(self, interp, op):  # type: ignore[no-untyped-def]
        q = interp.handles.get_tensor_handle(op.input)
        out = Primitive(q.array.astype(op.out.dtype.numpy), op.out.dtype, interp.device)
        interp.handles.register(op.out.id, out)

    def get_tensor(self, interp, ir, options):  # type: ignore[no-untyped-def]
        return HandleKind(Kind.QUANTIZED, interp.handles.get_tensor_handle(ir))

    def register_tensor_to_device(self, interp, id, tensor, options):  # type: ignore[no-untyped-def]
        interp.handles.register(id, interp.backend.to_device(tensor.primitive))

    def read_tensor(self, interp, ir, options):  # type: ignore[no-untyped-def]
        q = interp.handles.get_tensor_handle(ir)
        return TensorData(q.array.tobytes(), q.shape, ir.dtype)

    def register_tensor_data(self, interp, id, data, options):  # type: ignore[no-untyped-def]
        q = np.frombuffer(data.bytes, np.int8).reshape(data.shape).copy()
        interp.handles.register(id, Primitive(q, data.dtype, interp.device))

    def change_backend(self, source, target, handle, options):  # type: ignore[no-untyped-def]
        return Primitive(handle.array.copy(), handle.dtype, target.device)


DEVICES = ["cpu:0", "cpu:1", "peer2/cpu:0", "peer3/cpu:0@ndarray"]


def quantized(rt: Runtime, device: str = "cpu:0"):  # type: ignore[no-untyped-def]
    return rt.op(QuantizeOp, rt.tensor([1.0, -2.0, 3.0], device, "f32"), params=(Q8.scheme,))


@pytest.mark.parametrize(("target", "path", "events"), [
    ("cpu:1", "local", ["expose", "take", "copy"]),
    ("cpu:1", "bytes", ["publish", "download"]),
    ("cpu:1", "bridge", ["bridge"]),
    ("cpu:1", "dispatch", ["dispatch"]),
    ("peer2/cpu:0", None, ["publish", "download"]),
    ("peer3/cpu:0@ndarray", None, ["publish", "download"]),  # another backend: still bytes
    ("peer3/cpu:0@ndarray", "dispatch", ["dispatch"]),
])
@pytest.mark.parametrize("dtype", ["f32", "i64", "bool", "u32"])
def test_every_path_every_plain_dtype(target: str, path: str | None, events: list[str],
                                      dtype: str) -> None:
    """Docs/ARCHITECTURE.md's path table, for float, int, bool and uint (fixed behaviour)."""
    rt = Runtime(DEVICES)
    values = [[1, 0], [0, 1]]
    x = rt.tensor(values, "cpu:0", dtype)
    mark = len(rt.trace)
    y = rt.to_device(x, target, path)
    kinds = [e.kind for e in rt.trace.read(mark) if e.kind in
             ("expose", "take", "copy", "publish", "download", "bridge", "dispatch")]
    assert kinds == events
    assert y.dtype is DType.parse(dtype) and rt.read(y).tolist() == values
    assert rt.handle_ids("cpu:0") == []


def test_same_device_returns_the_input(rt: Runtime) -> None:
    """`float_to_device` returns the tensor unchanged
    (crates/burn-router/src/ops/tensor.rs:89-94)."""
    x = rt.tensor([1.0], "cpu:0")
    assert rt.to_device(x, "cpu:0") is x and x.alive


def test_moves_copy_real_bytes(rt: Runtime) -> None:
    x = rt.tensor(np.ones((4, 4)), "cpu:0", "f64")
    prim = rt.session("cpu:0").interpreter.handles.get_handle_ref(x.id)
    before = rt.session("cpu:1").interpreter.backend.bytes_copied
    y = rt.to_device(x, "cpu:1")
    moved = rt.session("cpu:1").interpreter.handles.get_handle_ref(y.id)
    assert rt.session("cpu:1").interpreter.backend.bytes_copied - before == 128
    assert moved.array is not prim.array and not np.shares_memory(moved.array, prim.array)


def test_deadlock_is_reported_not_hung(rt: Runtime) -> None:
    client = rt.client("cpu:1")
    out = TensorIr.uninit(client.create_empty_handle(), (1,), DType.F32)
    with pytest.raises(DeadlockError, match=r"target session cpu:1 would wait forever for "
                                            r"transfer 42 \(nothing will ever expose it\)"):
        rt.submit("cpu:1", RegisterLocalOp(42, out))
    assert rt.session("cpu:1").ended is not None
    with pytest.raises(SessionEnded, match="session cpu:1 has ended: hung"):
        rt.tensor([1.0], "cpu:1")


def test_legacy_qfloat_same_peer_panics_source_and_hangs_target(snapshot) -> None:  # type: ignore[no-untyped-def]
    """§14.2 items 2 and 4: get_tensor's todo! fires in the source session
    (crates/burn-router/src/interpreter.rs:98); the session ends (worker.rs:119-134, no
    catch_unwind) and the target parked in take would wait forever."""
    rt = Runtime(DEVICES, quantized=FakeQuant())
    q = quantized(rt)
    before = snapshot(rt)
    with pytest.raises(BurnTodo) as info:
        rt.to_device(q, "cpu:1", legacy=True, arrival="target-first")
    assert info.value.message == ("not yet implemented: Local transfer of QFloat('q8s-test') "
                                  "tensors is not supported yet")
    assert info.value.source == "crates/burn-router/src/interpreter.rs:98"
    assert "target session cpu:1 would wait forever for transfer 0" in str(info.value)
    # cpu:0's worker unwound, freeing its handles (worker.rs:149-181); cpu:1 hangs, keeping its
    assert snapshot(rt) == {**before, "cpu:0": {}} and q.alive
    assert rt.session("cpu:0").ended and rt.session("cpu:1").ended
    assert "session ENDED: panicked: not yet implemented" in rt.registry("cpu:0").caption


@pytest.mark.parametrize(("target", "path", "error", "source"), [
    ("peer2/cpu:0", None, BurnTodo, "crates/burn-router/src/interpreter.rs:2161"),
    ("peer3/cpu:0@ndarray", None, BurnTodo, "crates/burn-router/src/interpreter.rs:2161"),
    ("peer3/cpu:0@ndarray", "dispatch", BurnUnimplemented,
     "crates/burn-router/src/ops/qtensor.rs:45-46"),
    ("peer3/cpu:0@ndarray", "bridge", BurnUnimplemented,
     "crates/burn-router/src/channel/base.rs:58"),
])
def test_legacy_qfloat_other_paths(target: str, path: str | None, error: type,
                                   source: str) -> None:
    """Across peers the source session panics (and unwinds, freeing its handles); Dispatch and
    the default bridge stop on the client, where nothing is freed and no session ends."""
    rt = Runtime(DEVICES, quantized=FakeQuant())
    q = quantized(rt)
    with pytest.raises(error) as info:
        rt.to_device(q, target, path, legacy=True)
    in_session = path is None
    assert info.value.source == source
    assert rt.handle_ids("cpu:0") == ([] if in_session else [int(q.id)])
    assert (rt.session("cpu:0").ended is not None) == in_session


def test_legacy_register_to_device_quantized_arm() -> None:
    """The arm that is unreachable through get_tensor (§14.2) still replays Burn's text
    (interpreter.rs:124)."""
    interp = TensorInterpreter(make_backend(parse_device("cpu:1")), policy=Policy.LEGACY)
    kind = HandleKind(Kind.QUANTIZED, Primitive(np.zeros(2, np.int8), Q8, parse_device("cpu:0")))
    with pytest.raises(BurnTodo, match="^not yet implemented: Local transfer of quantized "
                                       "tensors is not supported yet$"):
        interp.register_tensor_to_device(0, kind)
    with pytest.raises(BurnTodo, match="^not yet implemented$"):
        interp.register_tensor_data(0, TensorData(b"\0\0", (2,), Q8))


def test_fixed_qfloat_moves_through_the_extension_on_every_path() -> None:
    rt = Runtime(DEVICES, quantized=FakeQuant())
    for target in ("cpu:1", "peer2/cpu:0", "peer3/cpu:0@ndarray"):
        moved = rt.to_device(quantized(rt), target)
        assert moved.dtype == Q8
        back = rt.op(DequantizeOp, moved, params=(DType.F32,))
        assert rt.read(back).tolist() == [1.0, -2.0, 3.0]


def test_quantize_ops_replay_todo_in_legacy_and_need_the_extension_otherwise() -> None:
    """FloatOperationIr::Quantize/Dequantize => todo!() (interpreter.rs:1390-1391)."""
    legacy = Runtime(["cpu:0"], legacy=True, quantized=FakeQuant())
    with pytest.raises(BurnTodo) as info:
        quantized(legacy)
    assert info.value.source == "crates/burn-router/src/interpreter.rs:1390-1391"
    bare = Runtime(["cpu:0"], quantized=False)
    assert bare.session("cpu:0").interpreter.quantized is None
    x = bare.tensor([1.0], "cpu:0")
    with pytest.raises(ExtensionMissingError, match="quantize on cpu:0 needs the quantization"):
        bare.op(QuantizeOp, x, params=(Q8.scheme,))
    assert x.alive and bare.session("cpu:0").ended is None  # not a Burn panic: session lives


def test_the_default_bridge_registers_through_the_channel() -> None:
    """The trait's default `change_client_backend` ends with `Self::register_tensor`
    (crates/burn-router/src/channel/base.rs:61-63), which `RemoteChannel` refuses
    (crates/burn-remote/src/client/channel.rs:33-43): replaying Burn, a plain tensor forced down
    that path panics on the client and nothing changes. The fix registers under a client id."""
    rt = Runtime(["cpu:0", "peer3/cpu:0@ndarray"], legacy=True)
    x = rt.tensor([1.0], "cpu:0")
    with pytest.raises(BurnPanic) as info:
        rt.to_device(x, "peer3/cpu:0@ndarray", "bridge")
    assert (info.value.message, info.value.source) == (
        "Can't register manually a tensor on a remote channel.",
        "crates/burn-remote/src/client/channel.rs:42")
    assert x.alive and rt.handle_ids("cpu:0") == [int(x.id)] and info.value.session is None
    fixed = Runtime(["cpu:0", "peer3/cpu:0@ndarray"])
    victim = fixed.tensor([7.0], "peer3/cpu:0@ndarray")
    moved = fixed.to_device(fixed.tensor([1.0], "cpu:0"), "peer3/cpu:0@ndarray", "bridge")
    assert moved.id != victim.id and fixed.read(victim).tolist() == [7.0]


def test_register_alias_shares_the_handle_until_both_are_freed(rt: Runtime) -> None:
    """interpreter.rs:151-159."""
    x = rt.tensor([1.0, 2.0], "cpu:0")
    interp = rt.session("cpu:0").interpreter
    alias = rt.client("cpu:0").create_empty_handle()
    interp.register_alias(alias, x.id)
    interp.handles.get(x.id, READ_WRITE)
    assert interp.handles.get(alias, READ_ONLY).array.tolist() == [1.0, 2.0]
    with pytest.raises(BurnPanic, match="alias source tensor must be materialized"):
        interp.register_alias(alias, x.id)


def test_explain_and_views(rt: Runtime) -> None:
    x = rt.tensor([1.0], "cpu:0")
    y = rt.to_device(x, "peer2/cpu:0")
    history = [(e.kind, e.device) for e in rt.explain(x.id)]
    assert ("get", "cpu:0") in history and ("publish", "cpu:0") in history
    assert [e.kind for e in rt.explain(y.id)] == ["op", "download", "register"]
    view = rt.trace.view()
    assert view.columns[:3] == ["step", "event", "device"] and len(view.rows) == len(rt.trace)
    assert rt.registry("peer2/cpu:0").rows[0][:3] == [int(y.id), "f64", "[1]"]


def test_quantize_op_carries_its_params() -> None:
    rt = Runtime(["cpu:0"], quantized=FakeQuant())
    x = rt.tensor([1.0], "cpu:0", "f32")
    seen = []

    class Recording(FakeQuant):
        def quantize(self, interp, op):  # type: ignore[no-untyped-def]
            seen.append(op.params)
            super().quantize(interp, op)

    rt.session("cpu:0").interpreter.quantized = Recording()
    q = rt.op(QuantizeOp, x, params=(Q8.scheme, {"scales": [0.5]}))
    assert q.dtype == Q8 and seen == [{"scales": [0.5]}]


def test_ops_defined_outside_the_core_plug_in() -> None:
    @dataclass(frozen=True)
    class NegOp(UnaryOp):
        name: ClassVar[str] = "neg"

        @staticmethod
        def infer(input, param):  # type: ignore[no-untyped-def]
            return input.shape, input.dtype

    def neg(interp, op):  # type: ignore[no-untyped-def]
        x = interp.handles.get_tensor_handle(op.input)
        interp.handles.register(op.out.id, Primitive(-x.array, x.dtype, interp.device))

    plain = Runtime(["cpu:0"])
    with pytest.raises(RouterLabError, match="no interpreter arm for op 'neg'"):
        plain.op(NegOp, plain.tensor([1.0], "cpu:0"), params=(None,))
    rt = Runtime(["cpu:0"], arms={NegOp: neg})  # the runtime owns the arm, no global changes
    assert rt.read(rt.op(NegOp, rt.tensor([1.0], "cpu:0"), params=(None,))).tolist() == [-1.0]
    with pytest.raises(RouterLabError, match="no interpreter arm for op 'neg'"):
        plain.op(NegOp, plain.tensor([1.0], "cpu:0"), params=(None,))


def _real_quantized(rt: Runtime):  # type: ignore[no-untyped-def]
    """A q8s tensor made by the real (default) quantization extension, and its interpreter."""
    q = rt.quantize(rt.tensor([1.0, -2.0, 3.0, 4.0], "cpu:0", "f32"), "q8s")
    interp = rt.session("cpu:0").interpreter
    assert type(interp.quantized).__name__ == "QuantizedTransfers"  # not FakeQuant
    return q, interp


@pytest.mark.parametrize("status", [READ_ONLY, READ_WRITE], ids=str)
def test_real_get_tensor_of_qfloat_returns_the_quantized_kind(status) -> None:  # type: ignore[no-untyped-def]
    """Fixed mode, the real extension: `get_tensor` (interpreter.rs:88-100) hands the quantized
    primitive over as `Kind.QUANTIZED`; the IR's status decides the registry effect
    (crates/burn-ir/src/handle.rs:93: ReadOnly keeps the entry, ReadWrite moves it out)."""
    from routerlab.core import is_quantized_handle
    from routerlab.core.fix.qtensor import QPrimitive

    rt = Runtime(["cpu:0", "cpu:1"])
    q, interp = _real_quantized(rt)
    held = interp.handles.get_handle_ref(q.id)
    mark = len(rt.trace)
    kind = interp.get_tensor(TensorIr(q.id, q.shape, status, q.dtype))
    assert kind.kind is Kind.QUANTIZED and kind.name() == "quantized"
    assert is_quantized_handle(kind) and isinstance(kind.primitive, QPrimitive)
    assert kind.primitive is held  # the native carrier hands the registered primitive over
    gets = [(e.kind, e.tensor_id, e.status) for e in rt.trace.read(mark)]
    assert gets == [("get", int(q.id), str(status))]
    if status is READ_ONLY:
        assert rt.handle_ids("cpu:0") == [int(q.id)] and interp.handles.get_handle_ref(q.id) is held
    else:
        assert rt.handle_ids("cpu:0") == []


@pytest.mark.parametrize("legacy_by", ["request", "interpreter"])
def test_real_get_tensor_of_qfloat_replays_burns_todo_in_legacy(legacy_by: str) -> None:
    """Legacy mode replays Burn's arm for QFloat (crates/burn-router/src/interpreter.rs:98):
    `todo!("Local transfer of {:?} tensors is not supported yet", dtype)`, raised before the
    registry is touched, so the ReadOnly entry stays."""
    rt = Runtime(["cpu:0", "cpu:1"])
    q, interp = _real_quantized(rt)
    held, mark = interp.handles.get_handle_ref(q.id), len(rt.trace)
    ir = TensorIr(q.id, q.shape, READ_ONLY, q.dtype)
    with pytest.raises(BurnTodo) as info:
        if legacy_by == "request":
            interp.get_tensor(ir, TransferRequest.of("cpu:1", policy="legacy"))
        else:
            interp.policy = Policy.LEGACY
            interp.get_tensor(ir)
    message = info.value.message
    assert message.startswith("not yet implemented: Local transfer of QFloat(QuantScheme {")
    assert message.endswith(") tensors is not supported yet")
    assert message == (f"not yet implemented: Local transfer of {burn_debug(q.dtype)} tensors is "
                       "not supported yet")
    assert info.value.source == "crates/burn-router/src/interpreter.rs:98"
    assert rt.handle_ids("cpu:0") == [int(q.id)] and interp.handles.get_handle_ref(q.id) is held
    assert rt.trace.read(mark) == []


def test_devices_equal_by_their_fields_and_survive_pickling() -> None:
    """`Device` caches its hash (it keys every session and move cache): a device built by hand
    equals and hashes like the parsed one, and a pickled one gets its hash computed again (a
    string's hash differs between processes)."""
    import pickle

    parsed = parse_device("peer2/cpu:1@ndarray")
    built = Device("cpu", 1, "peer2", Profile.NDARRAY)
    assert built == parsed and hash(built) == hash(parsed) and {parsed: 1}[built] == 1
    assert built != Device("cpu", 1, "peer2", Profile.FLEX) and built != Device("cpu", 2, "peer2")
    assert built != "peer2/cpu:1@ndarray"
    loaded = pickle.loads(pickle.dumps(parsed))
    assert loaded == parsed and loaded.__reduce__()[1] == ("cpu", 1, "peer2", Profile.NDARRAY)


def test_a_cached_request_still_refuses_by_type_and_takes_unhashable_input() -> None:
    """`TransferRequest.of` is cached: the same arguments give the same request, `hops=True`
    stays refused after `hops=1` was accepted (the cache keys by type), and an unhashable device
    is parsed, and refused, without the cache."""
    assert TransferRequest.of("cpu:1", policy="native") is TransferRequest.of(
        "cpu:1", policy="native")
    assert TransferRequest.of("cpu:1", hops=1).hops == 1
    changed = TransferRequest.of("cpu:1").but(policy=Policy.NATIVE)  # another object, one hash
    assert changed == TransferRequest.of("cpu:1", policy="native")
    assert hash(changed) == hash(TransferRequest.of("cpu:1", policy="native"))
    with pytest.raises(RouterLabError, match="hops must be a whole number"):
        TransferRequest.of("cpu:1", hops=True)
    with pytest.raises(RouterLabError, match="malformed device"):
        TransferRequest.of(["cpu:1"])  # type: ignore[arg-type]


def test_a_server_can_number_its_transfers_as_another_does() -> None:
    """Two clients each count transfer ids from 0, as Burn's per-process counters do
    (client/runner.rs:431); the race fault lines one up with the other to make them collide."""
    first, second = Runtime(["cpu:0", "cpu:1"]), Runtime(["cpu:0", "cpu:1"])
    source, target = first.devices
    for _ in range(3):
        first.server.new_transfer(source, target)
    second.server.number_transfers_as(first.server)
    assert second.server.new_transfer(source, target) == 3
    assert first.server.new_transfer(source, target) == 3


def test_a_normal_close_purges_only_the_same_peer_exposures_of_live_sessions() -> None:
    """`purge_session` clears `LocalCommService` only (local_comm.rs:87-92), and only for a
    worker that reaches it (worker.rs:140-151): a cross-peer publication stays, and so does what
    a panicked session exposed."""
    rt = Runtime(["cpu:0", "cpu:1", "cpu:2"])
    live, dead = rt.session("cpu:0"), rt.session("cpu:2")
    tensor = rt.tensor([1.0], "cpu:0")
    rt.server.expose_local(live, 1, HandleKind(Kind.FLOAT, None))
    rt.server.expose_local(dead, 2, HandleKind(Kind.FLOAT, None))
    rt.server.publish(live, 3, TensorData.from_array(np.ones(1, np.float32)))
    dead.end("panicked: a test", panicked=True)  # type: ignore[attr-defined]
    assert rt.server.pending_transfers() == 3 and tensor.alive
    rt.close()
    assert not rt.server.exposed_locally(live.device.peer, 1)
    assert rt.server.exposed_locally(dead.device.peer, 2) and rt.server.published(3)
