"""RouterTensor's clone count and the statuses it produces (crates/burn-router/src/tensor.rs)."""

from __future__ import annotations

import pytest

from routerlab.core import READ_ONLY, READ_WRITE, DropOp, Runtime, UseAfterDropError


def sent_drops(rt: Runtime) -> list[str]:
    return [e.detail for e in rt.trace.read() if e.kind == "drop"]


def test_clone_shares_the_count_and_id(rt: Runtime) -> None:
    """`clone` bumps the shared count and keeps the id (tensor.rs:123-135)."""
    x = rt.tensor([1.0], "cpu:0")
    y = x.clone()
    assert (x.id, x.count, y.count) == (y.id, 2, 2)
    assert not x.can_mut()


def test_into_ir_status_and_bump(rt: Runtime) -> None:
    """`into_ir`: ReadOnly while shared, ReadWrite for the last reference, and the ReadWrite bump
    keeps the drop at the end of into_ir silent (tensor.rs:67-87)."""
    x = rt.tensor([1.0], "cpu:0")
    y = x.clone()
    assert y.into_ir().status is READ_ONLY and x.count == 1
    assert x.into_ir().status is READ_WRITE
    assert not any(isinstance(op, DropOp) for op, _ in x.client.session.queue)


def test_last_use_sends_no_drop_and_unused_drop_sends_one(rt: Runtime) -> None:
    """§15.3: a last use in an op sends no Drop; dropping an unused unique tensor sends exactly
    one Drop(ReadWrite) (crates/burn-router/src/tensor.rs:67-87, 137-160)."""
    x = rt.tensor([1.0, 2.0], "cpu:0")
    y = rt.add(x, rt.clone(x))
    assert sent_drops(rt) == []
    assert rt.handle_ids("cpu:0") == [int(y.id)]
    rt.drop(y)
    assert sent_drops(rt) == [f"drop(#{int(y.id)} ReadWrite)"]
    assert rt.handle_ids("cpu:0") == []


def test_dropping_one_of_two_clones_sends_nothing(rt: Runtime) -> None:
    """The survivor frees the tensor later (tensor.rs:137-160)."""
    x = rt.tensor([1.0], "cpu:0")
    y = rt.clone(x)
    rt.drop(x)
    assert sent_drops(rt) == [] and rt.handle_ids("cpu:0") == [int(y.id)]
    rt.drop(y)
    assert len(sent_drops(rt)) == 1 and rt.handle_ids("cpu:0") == []


def test_use_after_consume_and_double_drop_raise(rt: Runtime) -> None:
    x = rt.tensor([1.0], "cpu:0")
    y = rt.add(x, rt.clone(x))
    with pytest.raises(UseAfterDropError, match="already dropped or consumed"):
        rt.add(x, y)
    rt.drop(y)
    with pytest.raises(UseAfterDropError):
        rt.drop(y)


def test_context_manager_drops_once(rt: Runtime) -> None:
    with rt.tensor([1.0], "cpu:0") as x:
        assert rt.handle_ids("cpu:0") == [int(x.id)]
    assert not x.alive and rt.handle_ids("cpu:0") == []
    with rt.tensor([1.0], "cpu:0") as x:
        y = rt.reshape(x, (1, 1))
    assert rt.handle_ids("cpu:0") == [int(y.id)]
