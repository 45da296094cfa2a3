"""The fusion stream a client counts (`RouterClient.unsynced`), which decides where a legacy
quantize stops under `fusion` (core/fix/fusion.py; `crates/burn-router/src/fusion.rs:254-259`)."""

from __future__ import annotations

import pytest

from routerlab.core import BurnPanic, BurnTodo, BurnUnimplemented, Runtime
from routerlab.core.fix.fusion import graph_size, legacy_quantize_wall


def test_ops_fill_the_stream_and_a_read_or_a_move_out_drains_it() -> None:
    rt = Runtime(["cpu:0", "cpu:1"], fusion=True)
    client = rt.client("cpu:0")
    x = rt.tensor([1.0, 2.0], "cpu:0")  # the upload is a task; its Init is a stream op
    assert client.unsynced == 1
    y = rt.add(x, rt.clone(x))
    assert client.unsynced == 2
    rt.read(y)
    assert client.unsynced == 0
    rt.mul(y, rt.clone(y))
    rt.to_device(rt.tensor([3.0], "cpu:0"), "cpu:1")  # Fusion drains the source to move
    assert client.unsynced == 0 and rt.client("cpu:1").unsynced == 0


def test_without_fusion_nothing_is_counted() -> None:
    rt = Runtime(["cpu:0"])
    rt.add(rt.tensor([1.0], "cpu:0"), rt.tensor([2.0], "cpu:0"))
    assert rt.client("cpu:0").unsynced == 0


def test_a_failed_step_puts_the_count_back() -> None:
    rt = Runtime(["cpu:0"], legacy=True, fusion=True)
    x = rt.tensor([1, 2], "cpu:0", "i32")
    before = rt.client("cpu:0").unsynced
    with pytest.raises(BurnPanic):  # the cast is registered (counted), then the session panics
        rt.cast(x, "i64")
    assert rt.client("cpu:0").unsynced == before


def test_the_wall_follows_the_graph_size() -> None:
    assert graph_size(0, calibrated=False) == 1 and graph_size(0, calibrated=True) > 1
    bare = legacy_quantize_wall(fusion=False, unsynced=5, calibrated=True)
    assert isinstance(bare, BurnUnimplemented) and bare.source.endswith(":27")
    lone = legacy_quantize_wall(fusion=True, unsynced=0, calibrated=False)
    assert isinstance(lone, BurnUnimplemented) and "nothing reached the server" in str(lone)
    assert legacy_quantize_wall(fusion=True, unsynced=1, calibrated=False) is None
    rt = Runtime(["cpu:0"], legacy=True, fusion=True)
    x = rt.tensor([1.0], "cpu:0")
    rt.read(rt.clone(x))
    with pytest.raises(BurnTodo):  # the add joins the stream: Add + Quantize is a graph
        rt.quantize(rt.add(x, rt.tensor([1.0], "cpu:0")), "q8s", scales=[0.1])


def test_a_lone_quantize_waits_in_the_stream_until_the_next_sync_point() -> None:
    """Legacy with fusion: a lone Quantize is held, not submitted; a failed read leaves it held
    (the step is rolled back); a move out of the device is a sync point too."""
    rt = Runtime(["cpu:0", "cpu:1"], legacy=True, fusion=True)
    x, y = rt.tensor([1.0, 2.0], "cpu:0"), rt.tensor([3.0], "cpu:0")
    rt.read(rt.clone(x))
    q = rt.quantize(x, "q8s", scales=[0.1])
    client = rt.client("cpu:0")
    assert client.held is not None and int(q.id) not in rt.handle_ids("cpu:0")
    for _ in range(2):  # a failed read puts everything back, the held Quantize included
        with pytest.raises(BurnUnimplemented):
            rt.read(rt.clone(y))
        assert client.held is not None and rt.session("cpu:0").ended is None
    with pytest.raises(BurnUnimplemented):
        rt.to_device(y, "cpu:1")
    assert y.alive and rt.handle_ids("cpu:1") == []
