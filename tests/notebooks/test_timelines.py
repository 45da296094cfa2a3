"""`routerlab.notebook.timelines`: the registry timeline and the swim-lane of notebooks 01-03,
drawn from a runtime's own trace. No kernel is started."""

from __future__ import annotations

from typing import Any

from routerlab.core import Runtime
from routerlab.notebook import registry_timeline, swimlane


def _registry_2() -> Runtime:
    rt = Runtime(["cpu:0"])
    a = rt.tensor([1.0, 2.0], "cpu:0", "f32")
    b = rt.tensor([3.0, 4.0], "cpu:0", "f32")
    c = rt.add(rt.clone(a), a)
    rt.mul(rt.clone(c), b)
    rt.drop(c)
    return rt


def test_the_timeline_has_a_bar_per_id_that_ends_at_its_last_use(pyplot: Any) -> None:
    rt = _registry_2()
    figure = registry_timeline(rt.trace.read(), "cpu:0", "registry-2")
    assert pyplot.get_fignums() == [], "returned closed: IPython shows it once"
    axis = figure.axes[0]
    assert [t.get_text() for t in axis.get_yticklabels()] == ["#0", "#1", "#2", "#3"]
    bars = {int(line.get_ydata()[0]): tuple(line.get_xdata()) for line in axis.lines
            if line.get_linewidth() == 6}
    events = [e for e in rt.trace.read() if e.device == "cpu:0"]
    gone = {e.tensor_id: i for i, e in enumerate(events)
            if (e.kind == "get" and e.status == "ReadWrite") or e.kind == "remove"}
    for row, tensor_id in enumerate([0, 1, 2]):
        assert bars[row][1] == gone[tensor_id], f"#{tensor_id} ends at its last use"
    assert bars[3][1] > len(events) - 1, "#3 is still registered at the end"
    labels = [t.get_text() for t in axis.texts]
    assert labels.count("RO") == 2 and labels.count("RW") == 2


def test_a_panic_ends_every_bar(pyplot: Any) -> None:
    from routerlab.core import READ_WRITE, AddOp, TensorIr
    from routerlab.notebook import catch_panic

    rt = Runtime()
    a = rt.tensor([1.0, 2.0], device="cpu:0", dtype="f32")
    wrong = TensorIr(a.id, a.shape, READ_WRITE, a.dtype)
    out = TensorIr.uninit(rt.client("cpu:0").create_empty_handle(), a.shape, a.dtype)
    with catch_panic():
        rt.submit("cpu:0", AddOp(wrong, wrong, out))
    figure = registry_timeline(rt.trace.read(), "cpu:0")
    axis = figure.axes[0]
    panic = len([e for e in rt.trace.read() if e.device == "cpu:0"]) - 1
    assert [line.get_xdata()[1] for line in axis.lines if line.get_linewidth() == 6] == [panic]
    assert any("panic" in t.get_text() for t in axis.texts)


def test_the_swimlane_has_the_client_and_one_lane_per_session(pyplot: Any) -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    x = rt.tensor([1.0], "cpu:0", "f32")
    mark = len(rt.trace)
    rt.to_device(x, "cpu:1", path="bytes")
    events = rt.trace.read(mark)
    figure = swimlane(events, "bytes")
    axis = figure.axes[0]
    assert [t.get_text() for t in axis.get_yticklabels()] == [
        "client", "session cpu:0", "session cpu:1"]
    arrows = [t for t in axis.texts if t.arrow_patch is not None]
    assert len(arrows) == sum(e.kind == "op" for e in events) == 2, "one arrow per task sent"
    labels = {t.get_text() for t in axis.texts}
    assert {"publish #0", "download #1", "register #1"} <= labels
