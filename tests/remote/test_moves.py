"""Every path and policy across two real served peers gives what the in-process model gives.

The served peers run the model's own sessions, interpreters and registries (core/serving/host.py),
so the strongest check is agreement: the same flow, in-process and served, must leave the same
registries, the same bytes and the same error text, except where the wait is really a wait (the
Iroh give-up is 0.3 s instead of 300 s on a simulated clock; docs/remote.md). `native` must also
be bit-exact against the source. Burn's routes: `crates/burn-remote/src/client/runner.rs:406-487`.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from routerlab.core import Runtime
from routerlab.core.base.data import TensorData
from routerlab.core.base.errors import RouterLabError
from routerlab.core.fix.qtensor import ReceivedData, q_from_data

VALUES = np.random.default_rng(7).standard_normal((4, 64)).astype(np.float32)
MOVES = {  # (source, target, forced path)
    "same-peer": ("peer1/cpu:0", "peer1/cpu:1", None),
    "cross-peer": ("peer1/cpu:0", "peer2/cpu:0", None),
    "in-process-to-served": ("cpu:0", "peer2/cpu:1", None),
    "served-to-in-process": ("peer1/cpu:1", "cpu:1", None),
    "dispatch": ("peer1/cpu:0", "peer2/cpu:0", "dispatch"),
}
POLICIES = ("native", "dequantize", "requantize", "reject", "legacy")
IROH_WAIT = re.compile(r"after (300 s over Iroh \(simulated clock: t = \d+ s\)|0\.3 s over Iroh "
                       r"\(Burn waits 300 s; served peers scale it down 1000x for teaching\))")


def _flow(rt: Runtime, move: str, policy: str, shared: bool) -> dict[str, Any]:
    source, target, path = MOVES[move]
    q = rt.quantize(rt.tensor(VALUES, device=source), "q8s")
    sent = rt.read_quantized(q)
    keep = rt.clone(q) if shared else None
    outcome: dict[str, Any] = {"sent": sent}
    try:
        moved = rt.to_device(q, target, path, policy=policy)
        outcome["arrived"] = rt.read_quantized(moved)
    except RouterLabError as error:
        outcome["error"] = (type(error).__name__, IROH_WAIT.sub("after <wait>",
                                                                str(error)))
    outcome["registries"] = {d: [list(r) for r in v.rows] for d, v in rt.registries().items()}
    outcome["ended"] = {str(d): rt.session(d).ended is not None for d in rt.devices}
    outcome["kept"] = keep is not None and keep.alive
    return outcome


@pytest.mark.parametrize("transport", ["iroh", "websocket"])
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("move", MOVES)
def test_served_agrees_with_in_process(peers: dict[str, str], move: str, policy: str,
                                       transport: str) -> None:
    shared = policy == "native"  # a shared tensor is copied, not moved: both kinds are covered
    with Runtime(peers=peers, transport=transport) as served:
        got = _flow(served, move, policy, shared)
    expected = _flow(Runtime(transport=transport), move, policy, shared)
    assert got.get("error") == expected.get("error")
    assert got["registries"] == expected["registries"]
    assert got["ended"] == expected["ended"]
    if "arrived" in expected:
        for part in ("values", "scales"):
            assert np.array_equal(getattr(got["arrived"], part), getattr(expected["arrived"], part))
    if policy == "native":  # Fix A: bit-exact from source to target, across processes
        assert np.array_equal(got["arrived"].values, got["sent"].values)
        assert np.array_equal(got["arrived"].scales, got["sent"].scales)
        assert got["kept"]


def test_legacy_replays_the_walls_in_the_real_processes(peers: dict[str, str]) -> None:
    """Over WebSocket the target would wait forever (RouterLab reports it); over Iroh it gives
    up after the scaled-down wait; either way the source session really died on its peer."""
    for transport, says in (("websocket", "would wait forever for transfer"),
                            ("iroh", "gave up waiting for transfer")):
        with Runtime(peers=peers, transport=transport) as rt:
            q = rt.quantize(rt.tensor(VALUES, device="peer1/cpu:0"), "q8s")
            with pytest.raises(RouterLabError, match="not yet implemented") as error:
                rt.to_device(q, "peer2/cpu:0", policy="legacy")
            assert says in str(error.value)
            assert error.value.source == "crates/burn-router/src/interpreter.rs:2161"  # type: ignore[attr-defined]
            assert "ENDED: panicked" in rt.registry("peer1/cpu:0").caption
            assert rt.handle_ids("peer1/cpu:0") == []  # the unwound worker freed its handles
            with pytest.raises(RouterLabError, match="has ended"):
                rt.tensor([1.0], device="peer1/cpu:0")


def test_same_peer_target_first_waits_then_takes(peers: dict[str, str]) -> None:
    with Runtime(peers=peers, arrival="target-first") as rt:
        x = rt.tensor([[1, 2]], device="peer2/cpu:0", dtype="i32")
        y = rt.to_device(x, "peer2/cpu:1")
        assert rt.read(y).tolist() == [[1, 2]]
        events = [(e.kind, e.device) for e in rt.trace.read()]  # the peer's events, merged
        assert ("wait", "peer2/cpu:1") in events  # the target arrived first and parked
        assert events.index(("wait", "peer2/cpu:1")) < events.index(("expose", "peer2/cpu:0"))
        assert "take" in [e.kind for e in rt.explain(y.id)]


@pytest.mark.parametrize("scheme", ["q8s", "q4s:block=32:scale=f16",
                                    "q8s:block=32:scale=f16:global=f32"])
def test_a_move_of_many_chunks_arrives_bit_exact_with_burns_copies(peers: dict[str, str],
                                                                   scheme: str) -> None:
    """The source sends while its readback still copies, the target keeps the buffer it received
    (docs/remote.md, "The bytes on `/data`"): a tensor of several chunks, with scales and a
    global after the values, arrives bit-exact, and each peer counts the copies the same hop counts
    in-process (Burn's readback and the target's one copy, no more)."""
    values = np.random.default_rng(3).standard_normal((2048, 1568)).astype(np.float32)

    def hop(rt: Runtime) -> tuple[Any, Any, list[tuple[int, int]]]:
        ends = ("peer1/cpu:0", "peer2/cpu:0")
        q = rt.quantize(rt.tensor(values, device=ends[0]), scheme)
        sent = rt.read_quantized(q)
        before = [rt.counters(d) for d in ends]
        moved = rt.to_device(q, ends[1], policy="native")
        after = [rt.counters(d) for d in ends]
        copied = [(a[0] - b[0], a[1] - b[1]) for a, b in zip(after, before, strict=True)]
        return sent, rt.read_quantized(moved), copied

    with Runtime(peers=peers) as served:
        sent, arrived, copied = hop(served)
    assert sent.nbytes > 3 << 20
    assert sent.to_bytes() == arrived.to_bytes()
    assert copied == hop(Runtime())[2]
    assert [nbytes for nbytes, _ in copied] == [sent.nbytes, sent.nbytes]


def test_bytes_received_into_a_buffer_of_their_own_are_kept_not_copied_again() -> None:
    """`ReceivedData` was copied once already, by the socket that received it into a buffer no one
    else holds (a served target's `DataSocket`): the arrival keeps views of it and counts that
    copy, as Flex's `q_from_data` keeps the `Vec` it is handed (burn-std quantization.rs:464-472);
    other data is copied."""
    rt = Runtime()
    sent = rt.read_quantized(rt.quantize(rt.tensor(VALUES, device="cpu:0"), "q8s"))
    backend = rt.session("cpu:1").interpreter.backend
    data = TensorData(sent.to_bytes(), sent.shape, sent.dtype)
    for given, shared in ((data, False), (ReceivedData(data.bytes, data.shape, data.dtype), True)):
        before = (backend.bytes_copied, backend.copies)
        arrived = q_from_data(backend, given).tensor
        assert np.shares_memory(arrived.values, np.frombuffer(given.bytes, np.uint8)) == shared
        assert (backend.bytes_copied - before[0], backend.copies - before[1]) == (len(data.bytes),
                                                                                  1)
        assert arrived.to_bytes() == sent.to_bytes()


def test_served_peers_batch_their_tasks_as_the_in_process_model_does(
        peers: dict[str, str]) -> None:
    """`wire=True` replays burn-remote's outgoing batch on a served peer's client too: the same
    batches, for the same reasons, as in process (docs/burn.md section 19)."""
    def program(rt: Runtime, device: str, target: str) -> list[tuple[int, str]]:
        x = rt.tensor([1.0, 2.0], device)
        y = rt.add(rt.clone(x), x)
        z = rt.mul(rt.clone(y), y)
        rt.read(rt.to_device(rt.add(rt.clone(z), z), target))
        return [(len(b.tasks), str(b.reason)) for b in rt.client(device).wire.sent]

    with Runtime(peers=peers, wire=True) as served:
        remote = program(served, "peer1/cpu:0", "peer2/cpu:0")
    local = program(Runtime(["cpu:0", "peer2/cpu:0"], wire=True), "cpu:0", "peer2/cpu:0")
    assert remote == local == [(1, "upload"), (4, "count"), (1, "transfer")]
