"""HandleContainer: one map, one invariant (crates/burn-ir/src/handle.rs)."""

from __future__ import annotations

import pytest

from routerlab.core import (
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    BurnPanic,
    HandleContainer,
    MissingHandleError,
    TensorId,
    TensorIr,
)
from routerlab.core.base.dtypes import DType
from routerlab.core.base.trace import Trace
from routerlab.core.router.handles import Journal


def test_tensor_id_prints_like_burn() -> None:
    """TensorId's Debug and Display texts (crates/burn-ir/src/tensor.rs:7-16)."""
    assert repr(TensorId(7)) == "TensorId { value: 7 }"
    assert str(TensorId(7)) == "TensorId(7)"
    assert TensorId(7) == 7 and TensorId(7).value == 7


def test_read_write_get_removes_and_second_get_panics_with_burns_text() -> None:
    """§15.1: a ReadWrite get moves the handle out; the next get panics
    (crates/burn-ir/src/handle.rs:93-113)."""
    c = HandleContainer("cpu:0")
    c.register(TensorId(3), "h")
    assert c.get(TensorId(3), READ_WRITE) == "h"
    assert not c.has_handle(3)
    with pytest.raises(MissingHandleError) as info:
        c.get(TensorId(3), READ_ONLY)
    assert str(info.value) == "Should have handle for tensor TensorId { value: 3 }"
    assert info.value.source == "crates/burn-ir/src/handle.rs:97"


def test_read_only_get_leaves_the_entry() -> None:
    """A ReadOnly get puts a clone back (handle.rs:101-104)."""
    c = HandleContainer()
    c.register(1, "h")
    assert c.get(1, READ_ONLY) == "h"
    assert c.get(1, READ_ONLY) == "h"
    assert c.num_handles() == 1


def test_not_init_status_panics_and_keeps_entry() -> None:
    """Getting with NotInit panics with Burn's text (handle.rs:106-108)."""
    c = HandleContainer()
    c.register(2, "h")
    with pytest.raises(BurnPanic, match=r"Cannot get uninitialized tensor TensorId \{ value: 2 \}"):
        c.get(2, NOT_INIT)
    assert c.has_handle(2)


def test_register_overwrites_silently_and_remove_is_unconditional() -> None:
    """§15.2: register_handle overwrites (handle.rs:66); remove_handle always removes (198)."""
    c = HandleContainer()
    c.register(1, "old")
    c.register(1, "new")
    assert c.get_handle_ref(1) == "new" and c.num_handles() == 1
    assert c.remove_handle(1) == "new"
    assert c.remove_handle(1) is None


def test_free_only_removes_read_write() -> None:
    """`free` does nothing for ReadOnly or NotInit (handle.rs:203-211)."""
    c = HandleContainer()
    c.register(1, "h")
    for status in (READ_ONLY, NOT_INIT):
        c.free(TensorIr(TensorId(1), (1,), status, DType.F32))
        assert c.has_handle(1)
    c.free(TensorIr(TensorId(1), (1,), READ_WRITE, DType.F32))
    assert not c.has_handle(1)


def test_fork_is_independent() -> None:
    """Registrations in a fork never reach the original (handle.rs:24, tests 239-300)."""
    c = HandleContainer()
    c.register(1, "a")
    f = c.fork()
    f.register(2, "b")
    f.get(1, READ_WRITE)
    assert sorted(c.handle_ids()) == [1] and sorted(f.handle_ids()) == [2]


def test_get_handle_ref_does_not_change_the_map() -> None:
    c = HandleContainer()
    assert c.get_handle_ref(5) is None
    c.register(5, "h")
    assert c.get_handle_ref(5) == "h" and c.has_handle(5)


def test_every_mutation_is_traced() -> None:
    trace = Trace()
    c = HandleContainer("cpu:0", trace)
    c.register(1, "h")
    c.get(1, READ_ONLY)
    c.get(1, READ_WRITE)
    c.register(2, "h")
    c.remove_handle(2)
    kinds = [(e.kind, e.tensor_id, e.status) for e in trace.read()]
    assert kinds == [("register", 1, None), ("get", 1, "ReadOnly"), ("get", 1, "ReadWrite"),
                     ("register", 2, None), ("remove", 2, None)]


def test_journal_rolls_back_exactly() -> None:
    journal = Journal()
    c = HandleContainer()
    journal.watch(c)
    c.register(1, "a")
    c.register(2, "b")
    journal.begin()
    c.get(1, READ_WRITE)
    c.register(2, "overwritten")
    c.register(3, "c")
    c.remove_handle(2)
    journal.rollback()
    assert {i: c.get_handle_ref(i) for i in c.handle_ids()} == {1: "a", 2: "b"}


def test_view_lists_ids() -> None:
    c = HandleContainer("cpu:0")
    c.register(4, "x")
    view = c.view()
    assert view.title == "Registry cpu:0" and [r[0] for r in view.rows] == [4]


def test_an_id_that_is_no_number_is_refused_before_anything_changes() -> None:
    container = HandleContainer("cpu:0")
    with pytest.raises(TypeError):
        container.register("3", object())  # type: ignore[arg-type]
    assert container.num_handles() == 0
