"""The guard's predicates and plans: what a transfer would do, decided before it is submitted."""

from __future__ import annotations

import numpy as np
import pytest

from routerlab.core import (
    DType,
    HandleKind,
    Kind,
    Path,
    Policy,
    QFloat,
    Runtime,
    can_move_to_device,
    is_quantized_handle,
    parse_device,
    plan_transfer,
)
from routerlab.core.base.errors import DeviceError, DTypeError, TransferRejected
from routerlab.core.fix import UnknownPolicyError
from routerlab.core.fix.guard import Outcome
from routerlab.core.quant import parse_scheme
from routerlab.teaching.measure import held

Q4 = QFloat(parse_scheme("q4s:store=native"))
CPU0, CPU1, PEER, CUBE = (parse_device(d) for d in ("cpu:0", "cpu:1", "peer2/cpu:0",
                                                     "peer3/cpu:0@cubecl"))


def test_is_quantized_handle_takes_a_handle_kind_a_kind_or_a_dtype() -> None:
    assert is_quantized_handle(HandleKind(Kind.QUANTIZED, object()))
    assert is_quantized_handle(Kind.QUANTIZED) and is_quantized_handle(Q4)
    for plain in (Kind.FLOAT, Kind.UINT, DType.F32, DType.U8, HandleKind(Kind.BOOL, object())):
        assert not is_quantized_handle(plain)


@pytest.mark.parametrize(("kind", "moves"), [
    (Kind.QUANTIZED, {"native": True, "dequantize": True, "requantize": True, "reject": False,
                      "legacy": False}),
    (Kind.UINT, {"native": True, "dequantize": True, "requantize": True, "reject": True,
                 "legacy": False}),
    (Kind.FLOAT, dict.fromkeys(["native", "dequantize", "requantize", "reject", "legacy"], True)),
])
def test_can_move_to_device(kind: Kind, moves: dict[str, bool]) -> None:
    assert {p: can_move_to_device(kind, p) for p in moves} == moves
    assert {p: can_move_to_device(HandleKind(kind, None), Policy(p)) for p in moves} == moves


def test_policy_names_are_the_contract() -> None:
    assert [p.value for p in Policy] == ["native", "dequantize", "requantize", "reject", "legacy"]
    assert Policy.parse(" Native ") is Policy.NATIVE
    with pytest.raises(UnknownPolicyError, match="unknown transfer policy 'fast'; expected one "
                                                 "of: native, dequantize, requantize, reject, "
                                                 "legacy"):
        Policy.parse("fast")


@pytest.mark.parametrize(("target", "path"), [(CPU1, "local"), (PEER, "bytes"), (CUBE, "bytes"),
                                              (CPU0, "same")])
def test_plan_picks_the_path_from_the_topology(target, path) -> None:  # type: ignore[no-untyped-def]
    plan = plan_transfer(Q4, (2, 16), CPU0, target)
    assert plan.path.value == path and plan.ok
    assert plan.outcome is (Outcome.NOOP if path == "same" else Outcome.MOVE)


def test_two_backends_on_one_peer_are_refused_with_the_reason() -> None:
    """A burn-remote server hosts one backend (crates/burn-remote/src/server/builder.rs:77-89)."""
    with pytest.raises(DeviceError, match=r"cpu:1@cubecl cannot join the local peer: it already "
                                          r"hosts cpu@flex \(cpu:0\).*one backend.*peer2/"):
        Runtime(["cpu:0", "cpu:1@cubecl"])
    rt = Runtime()
    rt.tensor([1.0], "cpu:0")
    with pytest.raises(DeviceError, match="cannot join the local peer"):
        rt.tensor([1.0], "cuda:0")  # refused before any GPU is looked for
    assert [str(d) for d in rt.devices] == ["cpu:0"]


def test_plan_of_a_cross_backend_move_says_the_tensor_is_repacked() -> None:
    plan = plan_transfer(Q4, (2, 16), CPU0, CUBE)
    assert str(plan.arrival_dtype) == "qfloat(q4s:store=packed-u32)"
    assert plan.notes == ("repacked on arrival: q4s:store=native -> q4s:store=packed-u32 "
                          "(cubecl layout)",)
    back = plan_transfer(plan.arrival_dtype, (2, 16), CUBE, CPU0)
    assert back.arrival_dtype == Q4


def test_a_layout_the_target_cannot_hold_is_refused_on_the_client() -> None:
    """CubeCL holds no Native 4-bit values, and a last dim of 3 fills no u32 word of 8."""
    plan = plan_transfer(Q4, (3, 3), CPU0, CUBE)
    assert plan.outcome is Outcome.REFUSED and "Can't store in u32" in plan.refusal
    rt = Runtime(["cpu:0", "peer3/cpu:0@cubecl"])
    q = rt.quantize(rt.tensor(np.ones((3, 3)), "cpu:0", "f32"), "q4s")
    for policy in ("native", "dequantize", "requantize"):
        with pytest.raises(TransferRejected, match="cannot arrive on a cubecl device"):
            rt.to_device(q, "peer3/cpu:0@cubecl", policy=policy)
    assert q.alive and rt.handle_ids("peer3/cpu:0@cubecl") == []


def test_legacy_plans_list_burn_walls_outermost_first() -> None:
    local = plan_transfer(Q4, (2, 16), CPU0, CPU1, policy="legacy")
    assert [w.function for w in local.walls] == [
        "BackendRouter::q_to_device", "TensorInterpreter::get_tensor",
        "TensorInterpreter::register_tensor_to_device"]
    assert [w.reached for w in local.walls] == [True, True, False]
    assert local.channel_wall is local.walls[1] and local.hangs
    bridge = plan_transfer(Q4, (2, 16), CPU0, CUBE, Path.BRIDGE, policy="legacy")
    assert bridge.channel_wall.source == "crates/burn-router/src/channel/base.rs:58"
    assert not bridge.hangs
    dispatch = plan_transfer(Q4, (2, 16), CPU0, CUBE, Path.DISPATCH, policy="legacy")
    assert dispatch.channel_wall.source == "crates/burn-router/src/ops/qtensor.rs:45-46"
    assert not dispatch.hangs
    assert any("advertises storage" in note for note in local.notes)  # the false advertisement
    uint = plan_transfer(DType.U8, (2,), CPU0, PEER, policy="legacy")
    assert uint.channel_wall.message == "not implemented" and uint.outcome is Outcome.PANIC


def test_plain_tensors_move_under_every_policy_but_legacy_uint() -> None:
    for policy in Policy:
        plan = plan_transfer(DType.F32, (2,), CPU0, CPU1, policy=policy)
        assert plan.outcome is Outcome.MOVE


def test_a_forced_path_the_topology_cannot_carry_is_refused() -> None:
    with pytest.raises(DeviceError, match="path 'local' needs both devices on one peer"):
        plan_transfer(Q4, (2, 16), CPU0, PEER, path=Path.LOCAL)


def test_runtime_plan_transfer_consumes_nothing() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    q = rt.quantize(rt.tensor(np.ones((2, 16)), "cpu:0", "f32"), "q8s")
    plan = rt.plan_transfer(q, "cpu:1", "bytes", policy="dequantize")
    assert plan.path.value == "bytes" and plan.policy is Policy.DEQUANTIZE
    assert plan.to_dict()["action"].startswith("dequantize, send f32 + scales")
    assert q.alive and rt.handle_ids("cpu:0") == [int(q.id)] and held(rt, q)


def test_router_q_to_device_shortcuts_the_same_device_and_forwards_the_rest() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    q = rt.quantize(rt.tensor(np.ones((2, 16)), "cpu:0", "f32"), "q8s")
    assert rt.q_to_device(q, "cpu:0") is q
    moved = rt.q_to_device(q, "cpu:1", policy="dequantize")
    assert moved.device == parse_device("cpu:1") and rt.handle_ids("cpu:0") == []
    with pytest.raises(DTypeError, match="q_to_device moves quantized tensors"):
        rt.q_to_device(rt.tensor([1.0], "cpu:0"), "cpu:1")


def test_quantized_data_registers_through_q_from_data() -> None:
    """`register_tensor_data_id` for QFloat (a `todo!()` in Burn, interpreter.rs:176)."""
    rt = Runtime(["cpu:0", "peer3/cpu:1@cubecl"])
    q = rt.quantize(rt.tensor(np.linspace(-1, 1, 32).reshape(2, 16), "cpu:0", "f32"), "q4s")
    data = rt.read_data(q)
    again = rt.from_data(data, "cpu:0")
    assert again.dtype == q.dtype and rt.read_quantized(again).bit_equal(rt.read_quantized(q))
    packed = rt.from_data(data, "peer3/cpu:1@cubecl")  # Native 4-bit arrives on CubeCL: repacked
    assert str(held(rt, packed).dtype) == str(packed.held) == "qfloat(q4s:store=packed-u32)"
    odd = rt.quantize(rt.tensor(np.ones((3, 3)), "cpu:0", "f32"), "q4s")
    with pytest.raises(TransferRejected, match="cannot arrive on a cubecl device"):
        rt.from_data(rt.read_data(odd), "peer3/cpu:1@cubecl")
    assert rt.handle_ids("peer3/cpu:1@cubecl") == [int(packed.id)]
