"""`legacy` raises Burn's exact texts on the layer that raises them; `reject` touches nothing.

Walls checked against Burn 2c06be3 (`git show 2c06be3:<path>`):
- router entry `BackendRouter::q_to_device` -> `unimplemented!()` (crates/burn-router/src/ops/
  qtensor.rs:34-39), on the client, even for the same device (no shortcut there);
- same peer: source session `get_tensor` -> `todo!("Local transfer of {dtype:?} tensors is not
  supported yet")` (interpreter.rs:98); the session ends and the target would wait forever;
- cross peer: source session `read_tensor_async` -> `todo!()` (interpreter.rs:2161);
- bridge: client `change_client_backend` -> `unimplemented!()` (channel/base.rs:58);
- Quantize / Dequantize ops -> `todo!()` (interpreter.rs:1390-1391); quantized data upload ->
  `todo!()` (interpreter.rs:176).
"""

from __future__ import annotations

import re

import pytest

from routerlab.core import BurnTodo, BurnUnimplemented, Policy, Runtime, TensorData
from routerlab.core.base.errors import TransferRejected
from routerlab.core.quant import to_bytes
from routerlab.teaching.measure import held

DEVICES = ["cpu:0", "cpu:1", "peer2/cpu:0", "peer3/cpu:0@cubecl"]
DEBUG = ("QFloat(QuantScheme { value: Q8S, store: Native, mode: Symmetric, tensor: None, "
         "block: None })")


def _quantized(rt: Runtime):  # type: ignore[no-untyped-def]
    return rt.quantize(rt.tensor([[-0.9, 0.5, 0.2, 0.1]], "cpu:0", "f32"), "q8s")


def _state(rt: Runtime) -> dict[str, object]:
    return {str(d): (rt.handle_ids(d), rt.registry(d).rows) for d in rt.devices}


@pytest.mark.parametrize("target", ["cpu:0", "cpu:1", "peer2/cpu:0", "peer3/cpu:0@cubecl"])
def test_router_entry_is_unimplemented_on_the_client(target: str) -> None:
    rt = Runtime(DEVICES)
    q = _quantized(rt)
    before = _state(rt)
    with pytest.raises(BurnUnimplemented) as raised:
        rt.q_to_device(q, target, policy="legacy")
    assert (raised.value.message, raised.value.source) == (
        "not implemented", "crates/burn-router/src/ops/qtensor.rs:34-39")
    assert str(raised.value) == "not implemented" and raised.value.session is None
    assert _state(rt) == before and q.alive
    assert all(rt.session(d).ended is None for d in DEVICES)


@pytest.mark.parametrize("arrival", ["source-first", "target-first"])
def test_same_peer_panics_in_the_source_session_and_the_target_hangs(arrival: str) -> None:
    rt = Runtime(DEVICES)
    q = _quantized(rt)
    before = _state(rt)
    with pytest.raises(BurnTodo) as raised:
        rt.to_device(q, "cpu:1", policy="legacy", arrival=arrival)
    panic = raised.value
    assert panic.message == f"not yet implemented: Local transfer of {DEBUG} tensors is not " \
                            "supported yet"
    assert panic.source == "crates/burn-router/src/interpreter.rs:98"
    assert panic.session == "cpu:0"
    assert "target session cpu:1 would wait forever for transfer" in str(panic)
    # the source's worker unwound and freed its handles; the hung target keeps its own
    assert _state(rt) == {**before, "cpu:0": ([], [])} and q.alive
    assert rt.session("cpu:0").ended.startswith("panicked: not yet implemented")
    assert rt.session("cpu:1").ended.startswith("hung: target session cpu:1 would wait forever")
    assert rt.server.pending_transfers() == 0


def test_cross_peer_panics_in_read_tensor_async() -> None:
    rt = Runtime(DEVICES)
    q = _quantized(rt)
    before = _state(rt)
    with pytest.raises(BurnTodo) as raised:
        rt.to_device(q, "peer2/cpu:0", policy="legacy")
    assert (raised.value.message, raised.value.source, raised.value.session) == (
        "not yet implemented", "crates/burn-router/src/interpreter.rs:2161", "cpu:0")
    assert _state(rt) == {**before, "cpu:0": ([], [])} and rt.session("cpu:0").ended is not None
    # over Iroh (the default) the target gives up after 300 s and goes on
    assert re.search(r"gave up waiting for transfer \d+ after 300 s over Iroh", str(raised.value))
    assert rt.session("peer2/cpu:0").ended is None and rt.server.clock == 300


def test_over_websocket_the_cross_peer_target_waits_forever() -> None:
    """crates/burn-communication/src/external_comm.rs:208-225: no timeout."""
    rt = Runtime(DEVICES, transport="websocket")
    with pytest.raises(BurnTodo) as raised:
        rt.to_device(_quantized(rt), "peer2/cpu:0", policy="legacy")
    assert re.search(r"target session peer2/cpu:0 would wait forever for transfer \d+",
                     str(raised.value))
    assert rt.session("peer2/cpu:0").ended.startswith("hung:") and rt.server.clock == 0


@pytest.mark.parametrize(("path", "source"), [
    ("bridge", "crates/burn-router/src/channel/base.rs:58"),
    ("dispatch", "crates/burn-router/src/ops/qtensor.rs:45-46")])
def test_client_side_walls_kill_nothing(path: str, source: str) -> None:
    rt = Runtime(DEVICES)
    q = _quantized(rt)
    before = _state(rt)
    with pytest.raises(BurnUnimplemented) as raised:
        rt.to_device(q, "peer3/cpu:0@cubecl", path, policy="legacy")
    assert (raised.value.message, raised.value.source) == ("not implemented", source)
    assert _state(rt) == before and all(rt.session(d).ended is None for d in DEVICES)
    assert rt.read_quantized(q).q().tolist() == [[-127, 71, 28, 14]]


def test_legacy_runtime_cannot_create_quantized_tensors() -> None:
    """A bare router refuses on the client (ops/qtensor.rs:15-28): nothing submitted, no
    session dies. With fusion the op reaches the server's todo!() (interpreter.rs:1390-1391),
    which ends the session."""
    legacy = Runtime(["cpu:0"], legacy=True)
    x = legacy.tensor([1.0, -1.0], "cpu:0", "f32")
    with pytest.raises(BurnUnimplemented) as raised:
        legacy.quantize(x, "q8s")
    assert raised.value.source == "crates/burn-router/src/ops/qtensor.rs:27"
    assert x.alive and legacy.session("cpu:0").ended is None
    fused = Runtime(["cpu:0"], legacy=True, fusion=True)
    with pytest.raises(BurnTodo) as raised:
        fused.quantize(fused.tensor([1.0, -1.0], "cpu:0", "f32"), "q8s")
    assert raised.value.source == "crates/burn-router/src/interpreter.rs:1390-1391"
    assert fused.session("cpu:0").ended is not None and fused.handle_ids("cpu:0") == []
    fixed = Runtime(["cpu:0"])
    data = held(fixed, fixed.quantize(fixed.tensor([1.0, -1.0], "cpu:0", "f32"), "q8s")).tensor
    again = Runtime(["cpu:0"], legacy=True)
    with pytest.raises(BurnTodo) as raised:
        again.from_data(TensorData(to_bytes(data), data.shape, data.dtype), "cpu:0")
    assert (raised.value.message, raised.value.source) == (
        "not yet implemented", "crates/burn-router/src/interpreter.rs:176")


def test_a_legacy_runtime_defaults_its_transfers_to_legacy() -> None:
    """`Runtime(legacy=True)`: no policy given means Burn's arms; a given policy wins."""
    rt = Runtime(["cpu:0", "cpu:1"])
    q = _quantized(rt)  # quantize itself is a todo! under legacy, so switch after it
    rt.policy = Policy.LEGACY  # the client decides a transfer's policy, from the runtime's
    assert rt.plan_transfer(q, "cpu:1").policy.value == "legacy"
    assert rt.plan_transfer(q, "cpu:1", policy="native").policy.value == "native"
    assert rt.plan_transfer(q, "cpu:1", legacy=False).policy.value == "native"


@pytest.mark.parametrize("target", ["cpu:1", "peer2/cpu:0", "peer3/cpu:0@cubecl"])
@pytest.mark.parametrize("shared", [False, True])
def test_reject_refuses_before_anything_is_submitted(target: str, shared: bool) -> None:
    rt = Runtime(DEVICES)
    q = _quantized(rt)
    keep = rt.clone(q) if shared else None
    before, events = _state(rt), len(rt.trace)
    with pytest.raises(TransferRejected) as raised:
        rt.to_device(q, target, policy="reject")
    text = str(raised.value)
    for part in ("qfloat(q8s:store=native)", "scheme q8s:store=native", "from cpu:0",
                 f"to {target}", "nothing was submitted", "'native'", "'dequantize'",
                 "'requantize'"):
        assert part in text
    assert _state(rt) == before and q.alive and q.count == (2 if shared else 1)
    assert keep is None or keep.alive
    new = rt.trace.read(events)
    assert [e.kind for e in new] == ["failed"] and new[0].device == "client"
    assert rt.server.pending_transfers() == 0
    assert all(rt.session(d).ended is None for d in DEVICES)


def test_legacy_is_a_spelling_of_the_policy_read_one_way_everywhere() -> None:
    """`legacy=True/False` means policy legacy/native for a runtime, a transfer, a scenario and
    a step; given beside a policy that disagrees it is refused, never ranked."""
    from routerlab.core import TransferRequest
    from routerlab.core.base.errors import RouterLabError, ScenarioError
    from routerlab.core.scenario import parse_scenario

    assert Runtime(legacy=True).policy is Policy.LEGACY
    assert Runtime(legacy=False, policy="native").policy is Policy.NATIVE
    assert TransferRequest.of("cpu:1", legacy=True).policy is Policy.LEGACY
    contradiction = "legacy = true contradicts policy = 'native'; legacy is a policy"
    with pytest.raises(RouterLabError, match=contradiction):
        Runtime(legacy=True, policy="native")
    with pytest.raises(RouterLabError, match=contradiction):
        TransferRequest.of("cpu:1", legacy=True, policy="native")
    with pytest.raises(ScenarioError, match=f"^s.toml: field 'legacy': {contradiction}"):
        parse_scenario('devices = ["cpu:0"]\nlegacy = true\npolicy = "native"\nsteps = []\n',
                       "s.toml")
    assert parse_scenario('devices = ["cpu:0"]\nlegacy = true\nsteps = []\n').policy is \
        Policy.LEGACY
