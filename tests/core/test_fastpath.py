"""The fast path (`routerlab.core.fastpath`) is the readable path, faster: the same programs on
two runtimes, one with `fast=True` and one with `fast=False`, give the same trace (every event,
step numbers and op descriptions included), the same registries, the same ids, the same values
down to the bytes, the same errors, and the same state after every rollback.

The programs are random (hypothesis): binary ops on tensors that may be shared, dropped,
consumed, passed twice, on two devices, of shapes that may not broadcast, with moves, reads and
drops between them, so the fast path's every refusal (`binary_step` answering None) and every
readable refusal it hands back are exercised too. Moves take the fast path too (`move_step`):
plain and quantized tensors (per tensor and per block), every policy (the quantized ones,
`reject` and `legacy`, which the fast path hands to the readable one), both arrival orders.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from routerlab.core import RouterTensor, Runtime
from routerlab.core.fastpath import binary_applies, holds, idle
from routerlab.core.router.backend import Backend
from routerlab.core.router.interpreter import TensorInterpreter
from routerlab.core.router.ir import AddOp, MulOp

DEVICES = ("cpu:0", "cpu:1")
SHAPES = ((2,), (2, 2), (3,))
OPS = ("add", "mul", "matmul")
SCHEMES = ("q8s", "q4s:block=2", "q8f")
POLICIES = (None, "native", "dequantize", "requantize", "reject", "legacy")
ARRIVALS = (None, "target-first")

action = st.one_of(
    st.tuples(st.just("op"), st.sampled_from(OPS), st.integers(0, 7), st.integers(0, 7)),
    st.tuples(st.just("clone"), st.integers(0, 7)),
    st.tuples(st.just("drop"), st.integers(0, 7)),
    st.tuples(st.just("move"), st.integers(0, 7), st.sampled_from(DEVICES),
              st.sampled_from(POLICIES), st.sampled_from(ARRIVALS)),
    st.tuples(st.just("quantize"), st.integers(0, 7), st.sampled_from(SCHEMES)),
    st.tuples(st.just("move"), st.integers(0, 7), st.sampled_from(DEVICES), st.just(None),
              st.just(None)),
    st.tuples(st.just("read"), st.integers(0, 7)),
    st.tuples(st.just("new"), st.sampled_from(SHAPES), st.sampled_from(DEVICES),
              st.sampled_from(("f32", "i32"))),
)


def _play(fast: bool, program: list[tuple[Any, ...]]) -> tuple[Runtime, list[Any]]:
    """Run `program` on a fresh runtime; every action's outcome (a value or the error)."""
    rt = Runtime(list(DEVICES), fast=fast)
    start = np.arange(2, dtype=np.float32) + 1
    pool: list[RouterTensor] = [rt.tensor(start, "cpu:0", "f32"), rt.tensor(start, "cpu:1", "f32"),
                                rt.quantize(rt.tensor(start * 3, "cpu:1", "f32"), "q8s"),
                                rt.tensor(start * 5, "cpu:0", "f32")]
    outcomes: list[Any] = []
    for act in program:
        try:
            outcomes.append(_act(rt, pool, act))
        except Exception as error:  # the refusal is part of what must be equal
            outcomes.append((type(error).__name__, str(error)))
        outcomes.append(_state(rt, pool))
    return rt, outcomes


def _act(rt: Runtime, pool: list[RouterTensor], act: tuple[Any, ...]) -> Any:
    kind = act[0]

    def pick(i: int) -> RouterTensor:
        return pool[i % len(pool)]

    if kind == "new":
        _, shape, device, dtype = act
        values = (np.arange(int(np.prod(shape))) % 5 - 2).reshape(shape)
        pool.append(rt.tensor(values, device, dtype))
        return None
    if kind == "op":
        _, name, i, j = act
        out = getattr(rt, name)(pick(i), pick(j))
        pool.append(out)
        return int(out.id)
    if kind == "clone":
        pool.append(rt.clone(pick(act[1])))
        return None
    if kind == "drop":
        rt.drop(pick(act[1]))
        return None
    if kind == "move":
        _, i, device, policy, arrival = act
        moved = rt.to_device(pick(i), device, policy=policy, arrival=arrival)
        pool.append(moved)
        return int(moved.id), str(moved.dtype), str(moved.held)
    if kind == "quantize":
        out = rt.quantize(pick(act[1]), act[2])
        pool.append(out)
        return int(out.id)
    return rt.read(pick(act[1])).tobytes()


def _bytes(handle: Any) -> bytes:
    """A registered handle's stored bytes: a plain array's, or a quantized tensor's values,
    scales and global scale."""
    if hasattr(handle, "array"):
        return bytes(handle.array.tobytes())
    q = handle.tensor
    return (np.asarray(q.values).tobytes() + np.asarray(q.scales).tobytes()
            + repr(q.global_scale).encode())


def _state(rt: Runtime, pool: list[RouterTensor]) -> tuple[Any, ...]:
    """Everything a step leaves behind: registries, ids minted, each reference's life, count and
    held layout, every registered value's bytes, and each device's copy counters."""
    held = tuple((d, tuple(rt.handle_ids(d)), rt.counters(d), tuple(
        (i, str(rt.handle(d, i).dtype), _bytes(rt.handle(d, i))) for i in rt.handle_ids(d)))
        for d in DEVICES)
    return held, rt._minted, tuple((int(t.id), t.alive, t.count, str(t.held)) for t in pool)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(action, min_size=1, max_size=30))
def test_random_programs_run_the_same_on_both_paths(program: list[tuple[Any, ...]]) -> None:
    fast, fast_outcomes = _play(True, program)
    slow, slow_outcomes = _play(False, program)
    assert fast_outcomes == slow_outcomes
    assert fast.trace.read(0) == slow.trace.read(0)
    assert len(fast.trace) == len(slow.trace)


def _taken(monkeypatch: pytest.MonkeyPatch, name: str) -> list[bool]:
    """Whether each call of the runtime's fast path `name` took it (answered a tensor)."""
    from routerlab.core import fastpath

    taken: list[bool] = []
    real = getattr(fastpath, name)

    def spy(*args: Any) -> Any:
        out = real(*args)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(f"routerlab.core.runtime.{name}", spy)
    return taken


def test_the_fast_path_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain flow takes it (so the test above compares two paths, not one path twice)."""
    taken = _taken(monkeypatch, "binary_step")
    rt = Runtime(list(DEVICES))
    x = rt.tensor([1.0, 2.0], "cpu:0", "f32")
    x = rt.add(x, rt.clone(x))
    x = rt.mul(x, rt.tensor([3.0, 4.0], "cpu:0", "f32"))
    assert taken == [True, True] and rt.read(x).tolist() == [6.0, 16.0]


@pytest.mark.parametrize("shared", [False, True])
def test_a_step_that_fails_inside_rolls_back_the_same_on_both_paths(
        monkeypatch: pytest.MonkeyPatch, shared: bool) -> None:
    """The backend fails after the inputs were consumed and taken from the registry: both paths
    undo everything (registry, counts, the step's events) and record the same failure."""
    def broken(self: Backend, lhs: Any, rhs: Any) -> Any:
        raise MemoryError("no memory for the result")

    states, traces = [], []
    for fast in (True, False):
        rt = Runtime(list(DEVICES), fast=fast)
        x = rt.tensor([1.0, 2.0], "cpu:0", "f32")
        y = rt.clone(x) if shared else rt.tensor([3.0, 4.0], "cpu:0", "f32")
        before = _state(rt, [x, y])
        with monkeypatch.context() as patch:
            patch.setattr(Backend, "add", broken)
            with pytest.raises(MemoryError):
                rt.add(x, y)
        after = _state(rt, [x, y])  # registries and references restored; the id stays spent
        assert (after[0], after[2], after[1]) == (before[0], before[2], before[1] + 1)
        assert rt.read(rt.add(x, y)).tolist() == ([2.0, 4.0] if shared else [4.0, 6.0])
        states.append(_state(rt, [x, y]))
        traces.append(rt.trace.read(0))
    assert states[0] == states[1] and traces[0] == traces[1]
    assert [e.kind for e in traces[0]].count("failed") == 1


def test_a_move_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain and a quantized same-peer move take it; another peer, a forced path and `legacy`
    go to the readable path."""
    taken = _taken(monkeypatch, "move_step")
    rt = Runtime([*DEVICES, "peer2/cpu:0"])
    x = rt.to_device(rt.tensor([1.0, 2.0], "cpu:0", "f32"), "cpu:1")
    q = rt.to_device(rt.quantize(x, "q8s"), "cpu:0")
    q = rt.to_device(q, "peer2/cpu:0")
    q = rt.to_device(q, "peer2/cpu:0")  # the same device: the input itself
    rt.to_device(rt.tensor([1], "cpu:0", "i32"), "cpu:1", "dispatch")
    rt.to_device(rt.tensor([1.0], "cpu:0", "f32"), "cpu:1", policy="legacy")
    assert taken == [True, True, False, False, False, False]
    assert rt.read(rt.dequantize(q)).tolist() == pytest.approx([1.0, 2.0], abs=0.01)


@pytest.mark.parametrize("scheme", [None, "q8s"])
def test_a_move_that_fails_inside_rolls_back_the_same_on_both_paths(
        monkeypatch: pytest.MonkeyPatch, scheme: str | None) -> None:
    """The copy fails after the source handle was taken and exposed: both paths undo
    everything (both registries, the rendezvous, the reference) and record the same failure;
    the transfer id and the new id stay spent on both."""
    def broken(self: Backend, *args: Any) -> Any:
        raise MemoryError("no memory for the copy")

    states, traces = [], []
    for fast in (True, False):
        rt = Runtime(list(DEVICES), fast=fast)
        x = rt.tensor([1.0, 2.0], "cpu:0", "f32")
        x = rt.quantize(x, scheme) if scheme else x
        rt.to_device(rt.tensor([0.0], "cpu:1", "f32"), "cpu:0")  # both devices exist
        before = _state(rt, [x])
        with monkeypatch.context() as patch:
            patch.setattr(Backend, "to_device", broken)
            with pytest.raises(MemoryError):
                rt.to_device(x, "cpu:1")
        after = _state(rt, [x])
        assert (after[0], after[2], after[1]) == (before[0], before[2], before[1] + 1)
        moved = rt.to_device(x, "cpu:1")
        states.append(_state(rt, [moved]))
        traces.append(rt.trace.read(0))
        assert not rt.server._local.get("local")  # no exposure left waiting
    assert states[0] == states[1] and traces[0] == traces[1]
    assert [e.kind for e in traces[0]].count("failed") == 1


@pytest.mark.parametrize(("given", "ops", "moves"), [
    ({}, {"add", "mul", "matmul"}, True),
    ({"fast": False}, set(), False),
    ({"fusion": True}, set(), False),
    ({"wire": True}, set(), False),
    ({"interpreter": type("Mine", (TensorInterpreter,), {})}, set(), False),
    ({"arms": {AddOp: lambda interpreter, op: None}}, {"mul", "matmul"}, True),
])
def test_what_a_runtime_decides_once_closes_the_fast_path(
        given: dict[str, Any], ops: set[str], moves: bool) -> None:
    """`opens_fast_path` and `fast_ops`: the options that never change for a runtime decide once
    which ops and moves may take the fast path; an op given an arm of its own never does."""
    rt = Runtime(list(DEVICES), **given)
    assert {op.name for op in rt.fast_ops} == ops and rt.fast_moves is moves
    x = rt.tensor([1.0, 2.0], "cpu:0", "f32")
    assert binary_applies(rt, MulOp, x, rt.clone(x)) is ("mul" in ops)


def test_each_predicate_closes_the_binary_fast_path() -> None:
    """The per-step predicates: no step open, two distinct tensors of one idle session that
    holds both."""
    rt = Runtime(list(DEVICES))
    x = rt.tensor([1.0, 2.0], "cpu:0", "f32")
    y, z = rt.clone(x), rt.tensor([3.0, 4.0], "cpu:1", "f32")
    session = rt.session("cpu:0")
    assert binary_applies(rt, AddOp, x, y) and idle(session) and holds(session, x)
    assert not binary_applies(rt, AddOp, x, x)           # passed twice
    assert not binary_applies(rt, AddOp, x, z)           # two devices
    with rt.step("open"):
        assert not binary_applies(rt, AddOp, x, y)       # a step is open: it joins that one
    session.queue.append(None)  # type: ignore[attr-defined,arg-type]
    assert not idle(session) and not binary_applies(rt, AddOp, x, y)
    session.queue.clear()  # type: ignore[attr-defined]
    rt.drop(y)
    assert not holds(session, y) and not binary_applies(rt, AddOp, x, y)


def test_a_step_of_the_callers_own_is_one_step_all_or_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`with rt.step(what):` makes several calls one step: they share its number, and a failure
    in the last undoes them all and is recorded once, under the step's name."""
    rt = Runtime(list(DEVICES))
    x = rt.tensor([1.0, 2.0], "cpu:0", "f32")
    before = (rt.handle_ids("cpu:0"), rt.handle_ids("cpu:1"), x.count)
    mark = len(rt.trace)
    with rt.step("two ops"):
        y = rt.add(rt.clone(x), rt.clone(x))
        moved = rt.to_device(y, "cpu:1")
    assert len({e.step for e in rt.trace.read(mark)}) == 1
    assert rt.read(moved).tolist() == [2.0, 4.0]
    rt.drop(moved)
    assert (rt.handle_ids("cpu:0"), rt.handle_ids("cpu:1"), x.count) == before
    def broken(self: Backend, *args: Any) -> Any:
        raise MemoryError("no memory for the copy")

    mark = len(rt.trace)
    with monkeypatch.context() as patch:
        patch.setattr(Backend, "to_device", broken)
        with pytest.raises(MemoryError), rt.step("two ops"):
            y = rt.add(rt.clone(x), rt.clone(x))
            rt.to_device(y, "cpu:1")
    assert (rt.handle_ids("cpu:0"), rt.handle_ids("cpu:1"), x.count) == before
    assert [(e.kind, e.detail) for e in rt.trace.read(mark)] == [
        ("failed", "two ops: no memory for the copy")]
