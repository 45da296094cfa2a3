"""The registry's compact trace events read back exactly as the tuples they stand for.

`HandleContainer` records its register, get and remove events as one int each (core/base/trace.py's
module docstring); before, it appended the tuple `(kind, label, id, status)`. `TupleContainer`
below is that readable form, kept as the reference: the same methods, recording tuples. Random
programs (hypothesis) run on both, each over its own trace shared by several registries (two of
them with the same label): registers, gets of every status, removes, missing ids, ids a session
never mints (negative, past `COMPACT_IDS`, numpy ints, `TensorId`s), a journal begun, rolled
back (with the trace truncated to its mark, as a step's rollback does) and committed, direct
truncations, foreign tuple events between them (what a session appends), relabelled registries,
step boundaries, and `Trace.CAP` made small so that the oldest half is dropped again and again.
After every action the two traces must be equal event by event (`TraceEvent` equality, step
numbers included), from every mark, per tensor (`explain`) and as a table, and so must the
registries, the outcomes and the errors.
"""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from routerlab.core import (
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    BurnPanic,
    HandleContainer,
    MissingHandleError,
    TensorId,
    TensorStatus,
)
from routerlab.core.base import trace as trace_module
from routerlab.core.base.trace import COMPACT_IDS, Trace, TraceEvent
from routerlab.core.router.handles import _MISSING, Journal


class TupleContainer(HandleContainer):
    """The readable form: every event appended as its tuple, as `HandleContainer` did before
    the compact log (crates/burn-ir/src/handle.rs:66, 93-113, 198 for what each method does)."""

    __slots__ = ()

    def register(self, id: int, handle: Any) -> None:
        if self._undo is not None:
            self._undo.append((self._handles, id, self._handles.get(id, _MISSING)))
        self._handles[id] = handle
        self._log(("register", self.label, int(id)))

    def get(self, id: int, status: TensorStatus) -> Any:
        if status is READ_WRITE:
            try:
                handle = self._handles.pop(id)
            except KeyError:
                raise MissingHandleError(int(id)) from None
            if self._undo is not None:
                self._undo.append((self._handles, id, handle))
            self._log(("get", self.label, int(id), "ReadWrite"))
            return handle
        try:
            handle = self._handles[id]
        except KeyError:
            raise MissingHandleError(int(id)) from None
        if status is not READ_ONLY:
            raise BurnPanic(f"Cannot get uninitialized tensor {TensorId(id)!r}. Tensor exist but "
                            "with wrong status", "crates/burn-ir/src/handle.rs:106-108")
        self._log(("get", self.label, int(id), "ReadOnly"))
        return handle

    def remove_handle(self, id: int) -> Any | None:
        handle = self._handles.pop(id, None)
        if handle is not None:
            if self._undo is not None:
                self._undo.append((self._handles, id, handle))
            self._log(("remove", self.label, int(id)))
        return handle


LABELS = ("cpu:0", "cpu:1", "peer2/cpu:0", "cpu:0")
"""The registries of one program: the last shares the first one's label (and codes)."""

ODD_IDS = (-1, -(1 << 40), COMPACT_IDS - 1, COMPACT_IDS, 1 << 64, 3 * COMPACT_IDS + 2)

ids = st.one_of(
    st.integers(0, 3), st.integers(0, 3),
    st.sampled_from(ODD_IDS),
    st.builds(TensorId, st.integers(0, 3)),
    st.builds(np.int64, st.integers(0, 3)),
)
registry = st.integers(0, len(LABELS) - 1)
register = st.tuples(st.just("register"), registry, ids)
statuses = st.sampled_from((READ_ONLY, READ_WRITE, READ_WRITE, NOT_INIT))
get = st.tuples(st.just("get"), registry, ids, statuses)
held = st.integers(0, 7)
"""Which of the ids a registry holds (in insertion order) a `get held` or `remove held` uses."""
action = st.one_of(  # the registry's own actions most often
    register, register, register, get, get,
    st.tuples(st.just("get held"), registry, held, statuses),
    st.tuples(st.just("get held"), registry, held, statuses),
    st.tuples(st.just("remove"), registry, ids),
    st.tuples(st.just("remove held"), registry, held),
    st.tuples(st.just("clear"), registry),
    st.tuples(st.just("foreign"), registry, ids),
    st.tuples(st.just("relabel"), registry, st.sampled_from(("cpu:1", "cuda:0", "cpu:0"))),
    st.tuples(st.sampled_from(("begin", "rollback", "commit", "step", "step", "step"))),
    st.tuples(st.just("truncate"), st.sampled_from((0, 1, 2, 1000))),
)


class World:
    """One trace, the registries that share it, and their journal."""

    def __init__(self, kind: type[HandleContainer]) -> None:
        self.trace = Trace()
        self.journal = Journal()
        self.registries = [kind(label, self.trace) for label in LABELS]
        for container in self.registries:
            self.journal.watch(container)
        self.mark = 0
        self.minted = 0

    def act(self, act: tuple[Any, ...]) -> Any:
        kind, *args = act
        if kind in ("register", "get", "remove", "clear", "foreign", "relabel", "get held",
                    "remove held"):
            container = self.registries[args[0]]
        if kind in ("get held", "remove held"):
            keys = list(container._handles)
            if not keys:
                return None
            kind, args[1] = kind.split()[0], keys[args[1] % len(keys)]
        if kind == "register":
            self.minted += 1
            container.register(args[1], f"handle {self.minted}")
        elif kind == "get":
            return container.get(args[1], args[2])
        elif kind == "remove":
            return container.remove_handle(args[1])
        elif kind == "clear":
            container.clear()
        elif kind == "foreign":  # what a session appends beside the registry's events
            self.trace.events.append(("op", container.label, int(args[1]), None, 0, "add"))
        elif kind == "relabel":
            container.label = args[1]
        elif kind == "begin" and not self.journal.active:
            self.mark = len(self.trace)
            self.journal.begin()
        elif kind == "rollback" and self.journal.active:
            self.journal.rollback()
            self.trace.truncate(self.mark)
        elif kind == "commit":
            self.journal.commit()
        elif kind == "step":
            return self.trace.begin_step()
        elif kind == "truncate":  # the last few events, or back to before those dropped
            self.trace.truncate(max(len(self.trace) - args[0], 0))
        return None

    def state(self) -> Any:
        trace = self.trace
        everything = trace.read()
        return (len(trace), trace.dropped, trace.step, len(trace.events),
                [sorted((int(k), v) for k, v in c._handles.items()) for c in self.registries],
                everything, [trace.read(mark) for mark in range(0, len(trace) + 2, 3)],
                {i: trace.explain(i) for i in {e.tensor_id for e in everything}},
                trace.view().rows)


def _outcome(world: World, act: tuple[Any, ...]) -> Any:
    try:
        return world.act(act)
    except Exception as error:  # the error is part of what must be equal
        return type(error).__name__, str(error)


def _play_both(program: list[tuple[Any, ...]], cap: int) -> tuple[World, World]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Trace, "CAP", cap)
        compact, reference = World(HandleContainer), World(TupleContainer)
        for number, act in enumerate(program):
            assert _outcome(compact, act) == _outcome(reference, act), (number, act)
            assert compact.state() == reference.state(), (number, act)
    return compact, reference


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(action, min_size=10, max_size=80), st.integers(2, 6))
def test_the_compact_log_reads_back_what_the_tuples_recorded(
        program: list[tuple[Any, ...]], cap: int) -> None:
    _play_both(program, cap)


def test_a_long_program_compacts_and_still_agrees() -> None:
    """A fixed program long enough to drop the oldest half several times at CAP 8, with a
    rollback across a step boundary and ids that take each form."""
    program: list[tuple[Any, ...]] = []
    for i in range(40):
        program += [("step",), ("begin",), ("register", i % 4, i), ("get", i % 3, i, READ_ONLY),
                    ("register", 1, ODD_IDS[i % len(ODD_IDS)]), ("foreign", 2, i),
                    ("get", i % 4, i, READ_WRITE), ("remove", 1, ODD_IDS[i % len(ODD_IDS)]),
                    ("rollback",) if i % 5 == 4 else ("commit",)]
    compact, _ = _play_both(program, cap=8)
    assert compact.trace.dropped > 0 and compact.trace.step == 40


def test_hot_events_append_no_tuple() -> None:
    """What the goal asks (issue 22): a register and a ReadWrite get append one int each (not
    a tuple, and nothing the garbage collector scans); ReadOnly gets and removes too."""
    trace = Trace()
    c = HandleContainer("cpu:0", trace)
    c.register(TensorId(3), "h")
    c.get(3, READ_ONLY)
    c.get(np.int64(3), READ_WRITE)
    c.register(4, "h")
    c.remove_handle(4)
    assert [type(e) for e in trace.events] == [int, int, np.int64, int, int]
    assert not any(gc.is_tracked(e) for e in trace.events)
    assert [tuple(e) for e in trace.read()] == [
        (0, "register", "cpu:0", 3, None, 0, ""), (0, "get", "cpu:0", 3, "ReadOnly", 0, ""),
        (0, "get", "cpu:0", 3, "ReadWrite", 0, ""), (0, "register", "cpu:0", 4, None, 0, ""),
        (0, "remove", "cpu:0", 4, None, 0, "")]
    assert all(type(e.tensor_id) is int for e in trace.read())


def test_the_docstring_example_reads_back() -> None:
    """trace.py's worked example: with labels[1] == "cpu:1", 5 + (1 * 4 + 1) * COMPACT_IDS is
    ("get", "cpu:1", 5, "ReadWrite")."""
    trace = Trace()
    assert trace.registry_codes("cpu:0")[0] == 0
    assert trace.registry_codes("cpu:1")[1] == (1 * 4 + 1) * COMPACT_IDS
    trace.events.append(5 + (1 * 4 + 1) * COMPACT_IDS)
    assert trace.read() == [TraceEvent(0, "get", "cpu:1", 5, "ReadWrite")]
    assert trace.explain(5) == trace.read() and trace.explain(4) == []


def test_ids_a_session_never_mints_are_recorded_as_tuples() -> None:
    trace = Trace()
    c = HandleContainer("cpu:0", trace)
    for id in (-1, COMPACT_IDS, 1 << 64):
        c.register(id, "h")
        c.get(id, READ_WRITE)
    assert all(isinstance(e, tuple) for e in trace.events)
    assert [(e.kind, e.tensor_id) for e in trace.read()] == [
        ("register", -1), ("get", -1), ("register", COMPACT_IDS), ("get", COMPACT_IDS),
        ("register", 1 << 64), ("get", 1 << 64)]


def test_a_relabelled_registry_records_its_new_label_from_then_on() -> None:
    trace = Trace()
    c = HandleContainer("cpu:0", trace)
    c.register(1, "h")
    c.label = "cpu:1"
    c.get(1, READ_WRITE)
    assert [(e.device, e.kind) for e in trace.read()] == [("cpu:0", "register"), ("cpu:1", "get")]


def test_a_trace_refuses_more_labels_than_it_can_code(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trace_module, "MAX_LABELS", 2)
    trace = Trace()
    HandleContainer("cpu:0", trace)
    HandleContainer("cpu:1", trace)
    HandleContainer("cpu:0", trace)  # a label it holds already costs nothing
    with pytest.raises(ValueError, match="at most 2 registry labels"):
        HandleContainer("cpu:2", trace)


def test_a_registry_over_a_dict_with_other_ids_records_its_gets_as_tuples() -> None:
    """`over` checks the keys it is given, as `register` checks each id: a get records `id +
    code` without checking the id it found, so a dict that holds another id must not reach
    one with codes."""
    for handles in ({-1: "a", 2: "b"}, {COMPACT_IDS: "a", 2: "b"}, {"x": "a", 2: "b"}):
        compact, reference = HandleContainer.over(handles, "cpu:0"), TupleContainer.over(
            dict(handles), "cpu:0")
        for container in (compact, reference):
            for id in list(handles):
                if id != "x":
                    container.get(id, READ_ONLY)
        assert compact._trace.read() == reference._trace.read()
        assert all(isinstance(e, tuple) for e in compact._trace.events)
    plain = HandleContainer.over({2: "b"}, "cpu:0")
    plain.get(2, READ_WRITE)
    assert [type(e) for e in plain._trace.events] == [int]


def test_a_fork_of_a_registry_that_held_other_ids_records_tuples_too() -> None:
    c = HandleContainer("cpu:0")
    c.register(-1, "a")
    c.register(2, "b")
    fork = c.fork()
    fork.get(-1, READ_WRITE)
    fork.get(2, READ_WRITE)
    assert [(e.kind, e.device, e.tensor_id, e.status) for e in fork._trace.read()] == [
        ("get", "cpu:0 (fork)", -1, "ReadWrite"), ("get", "cpu:0 (fork)", 2, "ReadWrite")]
    assert all(isinstance(e, tuple) for e in fork._trace.events)


def test_compaction_drops_exactly_the_oldest_half_of_a_mixed_log(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Past `CAP`, the next step drops the oldest half, compact ints and tuples alike; indices,
    step numbers and `explain` go on as before."""
    monkeypatch.setattr(Trace, "CAP", 4)
    trace = Trace()
    c = HandleContainer("cpu:0", trace)
    for i in range(5):
        c.register(i, "h")
        trace.record("note", "cpu:0", i)
    assert trace.begin_step() == 1
    assert (trace.dropped, len(trace), len(trace.events)) == (5, 10, 5)
    c.get(3, READ_WRITE)
    assert trace.read() == [
        TraceEvent(0, "note", "cpu:0", 2), TraceEvent(0, "register", "cpu:0", 3),
        TraceEvent(0, "note", "cpu:0", 3), TraceEvent(0, "register", "cpu:0", 4),
        TraceEvent(0, "note", "cpu:0", 4), TraceEvent(1, "get", "cpu:0", 3, "ReadWrite")]
    assert trace.read(9) == trace.read()[-2:] and trace.read(2) == trace.read()
    assert trace.explain(1) == [] and [e.kind for e in trace.explain(3)] == [
        "register", "note", "get"]
