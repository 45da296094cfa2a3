"""The fast path (`routerlab.core.fastpath`) is the readable path, faster: the same programs on
two runtimes, one with `fast=True` and one with `fast=False`, give the same trace (every event,
step numbers and op descriptions included), the same registries, the same ids, the same values
down to the bytes, the same errors, and the same state after every rollback.

The programs are random (hypothesis): binary ops on tensors that may be shared, dropped,
consumed, passed twice, on two devices, of shapes that may not broadcast, with moves, reads and
drops between them, so the fast path's every refusal (`binary_step` answering None) and every
readable refusal it hands back are exercised too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from routerlab.core import RouterTensor, Runtime
from routerlab.core.backend import Backend

DEVICES = ("cpu:0", "cpu:1")
SHAPES = ((2,), (2, 2), (3,))
OPS = ("add", "mul", "matmul")

action = st.one_of(
    st.tuples(st.just("op"), st.sampled_from(OPS), st.integers(0, 7), st.integers(0, 7)),
    st.tuples(st.just("clone"), st.integers(0, 7)),
    st.tuples(st.just("drop"), st.integers(0, 7)),
    st.tuples(st.just("move"), st.integers(0, 7), st.sampled_from(DEVICES)),
    st.tuples(st.just("read"), st.integers(0, 7)),
    st.tuples(st.just("new"), st.sampled_from(SHAPES), st.sampled_from(DEVICES),
              st.sampled_from(("f32", "i32"))),
)


def _play(fast: bool, program: list[tuple[Any, ...]]) -> tuple[Runtime, list[Any]]:
    """Run `program` on a fresh runtime; every action's outcome (a value or the error)."""
    rt = Runtime(list(DEVICES), fast=fast)
    pool: list[RouterTensor] = [rt.tensor(np.arange(2, dtype=np.float32) + 1, "cpu:0", "f32")]
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
        moved = rt.to_device(pick(act[1]), act[2])
        pool.append(moved)
        return int(moved.id)
    return rt.read(pick(act[1])).tobytes()


def _state(rt: Runtime, pool: list[RouterTensor]) -> tuple[Any, ...]:
    """Everything a step leaves behind: registries, ids minted, each reference's life and count,
    and every registered value's bytes."""
    held = tuple((d, tuple(rt.handle_ids(d)), tuple(
        (i, rt.handle(d, i).dtype, rt.handle(d, i).array.tobytes()) for i in rt.handle_ids(d)))
        for d in DEVICES)
    return held, rt._minted, tuple((int(t.id), t.alive, t.count) for t in pool)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(action, min_size=1, max_size=30))
def test_random_programs_run_the_same_on_both_paths(program: list[tuple[Any, ...]]) -> None:
    fast, fast_outcomes = _play(True, program)
    slow, slow_outcomes = _play(False, program)
    assert fast_outcomes == slow_outcomes
    assert fast.trace.read(0) == slow.trace.read(0)
    assert len(fast.trace) == len(slow.trace)


def test_the_fast_path_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain flow takes it (so the test above compares two paths, not one path twice)."""
    from routerlab.core import fastpath

    taken: list[bool] = []
    real = fastpath.binary_step

    def spy(*args: Any) -> Any:
        out = real(*args)
        taken.append(out is not None)
        return out

    monkeypatch.setattr("routerlab.core.runtime.binary_step", spy)
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
