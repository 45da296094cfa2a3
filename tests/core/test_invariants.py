"""Reference §15 items 1-6, end to end through the runtime; each cites its Burn source."""

from __future__ import annotations

import numpy as np
import pytest

from routerlab.core import (
    READ_ONLY,
    AddOp,
    BurnTodo,
    BurnUnimplemented,
    DropOp,
    DType,
    MissingHandleError,
    ReadOp,
    Runtime,
    SessionEnded,
    TensorIr,
)


def test_1_read_write_use_removes_and_later_get_panics(rt: Runtime) -> None:
    """§15.1 (crates/burn-ir/src/handle.rs:93): the op that consumes the last reference frees
    the tensor; a later read of the same id panics with 'Should have handle…'."""
    x = rt.tensor([1.0, 2.0], "cpu:0")
    xid = x.id
    y = rt.add(x, rt.clone(x))
    assert int(xid) not in rt.handle_ids("cpu:0")
    with pytest.raises(MissingHandleError,
                       match=r"^Should have handle for tensor TensorId \{ value: 0 \}"):
        rt.submit("cpu:1", ReadOp(TensorIr(xid, (2,), READ_ONLY, DType.F32)))
    rt.drop(y)


def test_2_register_overwrites_and_drop_removes_whatever_the_status(rt: Runtime) -> None:
    """§15.2 (crates/burn-ir/src/handle.rs:66, crates/burn-router/src/interpreter.rs:2118-2120):
    an op whose output id already exists overwrites it; Drop removes even with ReadOnly."""
    a = rt.tensor([1.0], "cpu:0")
    b = rt.tensor([5.0], "cpu:0")
    rt.submit("cpu:0", AddOp(TensorIr(a.id, (1,), READ_ONLY, DType.F32),
                             TensorIr(a.id, (1,), READ_ONLY, DType.F32),
                             TensorIr.uninit(b.id, (1,), DType.F32)))
    np.testing.assert_array_equal(rt.read(b), [2.0])
    rt.submit("cpu:0", DropOp(TensorIr(a.id, (1,), READ_ONLY, DType.F32)))
    assert rt.handle_ids("cpu:0") == [int(b.id)]


def test_3_last_use_sends_no_drop_unused_drop_sends_one(rt: Runtime) -> None:
    """§15.3 (crates/burn-router/src/tensor.rs:67-87 and 137-160)."""
    x = rt.tensor([1.0], "cpu:0")
    y = rt.mul(x, rt.clone(x))
    z = rt.tensor([2.0], "cpu:0")
    rt.drop(z)
    drops = [e.detail for e in rt.trace.read() if e.kind == "drop"]
    assert drops == [f"drop(#{int(z.id)} ReadWrite)"]
    assert rt.handle_ids("cpu:0") == [int(y.id)]


@pytest.mark.parametrize("target", ["cpu:1", "peer2/cpu:0", "peer3/cpu:0@ndarray"])
def test_4_unique_moves_shared_copies(target: str) -> None:
    """§15.4 (crates/burn-remote/src/client/runner.rs:422-487, worker.rs:280-309): a unique
    tensor leaves the source and appears under a NEW id; a shared one stays at the source and
    its clones keep the old id. Covers the local, bytes and bridge paths."""
    rt = Runtime()
    x = rt.tensor([[1.0, 2.0]], "cpu:0")
    old = int(x.id)
    moved = rt.to_device(x, target)
    assert rt.handle_ids("cpu:0") == [] and rt.handle_ids(target) == [int(moved.id)]
    assert int(moved.id) != old

    s = rt.tensor([[3.0, 4.0]], "cpu:0")
    keep = rt.clone(s)
    copied = rt.to_device(s, target)
    assert rt.handle_ids("cpu:0") == [int(keep.id)] and keep.count == 1
    assert int(copied.id) in rt.handle_ids(target) and copied.id != keep.id
    np.testing.assert_array_equal(rt.read(keep), rt.read(copied))


@pytest.mark.parametrize("arrival", ["source-first", "target-first"])
def test_5_rendezvous_either_side_first(arrival: str) -> None:
    """§15.5 (crates/burn-remote/src/server/local_comm.rs:31-92, worker.rs:9-18): sessions run
    their FIFO in order; the target may reach `take` before the source exposes."""
    rt = Runtime(arrival=arrival)
    x = rt.tensor([1.0, 2.0], "cpu:0")
    rt.client("cpu:1")
    y = rt.to_device(x, "cpu:1")
    kinds = [e.kind for e in rt.trace.read() if e.kind in ("expose", "take", "wait")]
    expected = ["expose", "take"] if arrival == "source-first" else ["wait", "expose", "take"]
    assert kinds == expected
    np.testing.assert_array_equal(rt.read(y), [1.0, 2.0])
    assert rt.server.pending_transfers() == 0


def test_5_a_parked_target_lists_its_task_before_its_wait() -> None:
    """The target's worker receives `RegisterTensorLocal` and waits *inside* it, in
    `local_comm.take` (crates/burn-remote/src/server/worker.rs:296-309): its task line comes
    first, then the wait, and the task is listed once however long it parks."""
    rt = Runtime(arrival="target-first")
    x = rt.tensor([1.0, 2.0], "cpu:0")
    mark = len(rt.trace)
    rt.to_device(x, "cpu:1")
    target = [(e.kind, e.detail) for e in rt.trace.read(mark) if e.device == "cpu:1"]
    assert [kind for kind, _ in target] == ["op", "wait", "take", "copy", "register"]
    assert target[0][1].startswith("register_local(")


def test_5_fifo_order_per_session(rt: Runtime) -> None:
    """§15.5: a session applies tasks in submission order (worker.rs:9-18)."""
    x = rt.tensor([1.0], "cpu:0")
    y = rt.add(rt.clone(x), x)
    ops = [e.detail for e in rt.trace.read() if e.kind == "op"]
    assert ops == [f"register_data() -> #{int(x.id)}", f"init() -> #{int(x.id)}",
                   f"add(#{int(x.id)} ReadOnly, #{int(x.id)} ReadWrite) -> #{int(y.id)}"]


def test_6_dispatch_uses_exact_predicates_in_legacy(snapshot) -> None:
    """§15.6 (crates/burn-router/src/interpreter.rs:88-100, 162-178, 2139-2176): uint matches
    none of is_float / is_int / is_bool. Legacy: a same-peer move hits todo!(), a read hits
    unimplemented!(), and uint data is silently not registered; signed ints and bools work."""
    rt = Runtime(["cpu:0", "cpu:1"], legacy=True)
    for dtype in ("i32", "bool", "f16"):
        t = rt.tensor([1, 0], "cpu:0", dtype)
        assert rt.read(rt.to_device(t, "cpu:1")).tolist() == [1, 0]
    before = snapshot(rt)
    u = rt.tensor([1, 2], "cpu:0", "u8")
    assert snapshot(rt) == before  # no else-branch: nothing registered
    with pytest.raises(BurnUnimplemented, match=r"^not implemented \(session cpu:0 panicked"):
        rt.read(u)  # the dtype chain falls through before any handle is looked up
    assert rt.session("cpu:0").ended is not None  # the panic ended that session
    with pytest.raises(SessionEnded):
        rt.tensor([1.0], "cpu:0")
    fixed = Runtime(["cpu:0", "cpu:1"])
    f = fixed.tensor([1, 2], "cpu:0", "u8")
    with pytest.raises(BurnTodo, match=r"^not yet implemented: Local transfer of U8 tensors"):
        fixed.to_device(f, "cpu:1", legacy=True)
    assert fixed.session("cpu:1").ended is not None  # parked in take forever: hung


def test_6_fixed_uint_works_everywhere() -> None:
    """RouterLab's fix: uint has its own arm in every entry point and on every path."""
    rt = Runtime(["cpu:0", "cpu:1", "peer2/cpu:0", "peer3/cpu:0@ndarray"])
    for target in ("cpu:1", "peer2/cpu:0", "peer3/cpu:0@ndarray"):
        t = rt.tensor([7, 8], "cpu:0", "u16")
        moved = rt.to_device(t, target)
        assert rt.read(moved).tolist() == [7, 8] and moved.dtype is DType.U16
