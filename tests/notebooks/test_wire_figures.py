"""`routerlab.notebook.wire`: notebook 09's lanes of a client's queue, batches and wire, its
batch table and the graph cache's board, drawn from the core's own records. No kernel."""

from __future__ import annotations

from typing import Any

from routerlab.core import Runtime
from routerlab.core.wire import layers
from routerlab.notebook import batch_table, graph_board, wire_lanes


def _queue() -> Any:
    rt = Runtime(["cpu:0"], wire=True)
    x = rt.tensor([1.0, 2.0], "cpu:0")
    y = rt.add(rt.clone(x), x)
    rt.read(rt.mul(rt.clone(y), y))
    return rt.client("cpu:0").wire


def _notebook_queue() -> Any:
    """Notebook 09's own example: two uploads, three ops and a read on cpu:0."""
    rt = Runtime(["cpu:0", "cpu:1"], wire=True)
    x = rt.tensor([1.0, 2.0], "cpu:0")
    y = rt.tensor([3.0, 4.0], "cpu:0")
    z = rt.add(rt.clone(x), y)
    w = rt.mul(rt.clone(z), z)
    rt.read(rt.add(w, x))
    return rt.client("cpu:0").wire


def test_the_lanes_draw_a_wait_per_task_and_an_arrow_per_batch(pyplot: Any) -> None:
    queue = _queue()
    figure = wire_lanes(queue.sent, queue.batch.tasks, drains=queue.drained)
    assert pyplot.get_fignums() == [], "returned closed: IPython shows it once"
    axis = figure.axes[0]
    assert [t.get_text() for t in axis.get_yticklabels()] == [
        "calls", "device queue", "outgoing batch", "wire"]
    labels = [t.get_text() for t in axis.texts if t.get_text().startswith("batch ")]
    assert labels == [f"batch {b.number}: {b.reason}" for b in queue.sent]


def test_the_lanes_labels_never_overlap(pyplot: Any) -> None:
    """Issue 39: notebook 09's figure wrote "batch 3: count" over "batch 4: answer"."""
    queue = _notebook_queue()
    figure = wire_lanes(queue.sent, queue.batch.tasks, drains=queue.drained)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    boxes = [t.get_window_extent(renderer) for t in figure.axes[0].texts
             if t.get_text().startswith("batch ")]
    assert len(boxes) == len(queue.sent) >= 3
    assert not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.overlaps(b)]


def test_the_lanes_show_the_device_queue_holding_every_call_until_the_read(pyplot: Any) -> None:
    """In notebook 09's example nothing leaves before the read: one drain, at the read, ran
    every call (docs/burn.md section 19)."""
    queue = _notebook_queue()
    assert [(str(reason), len(tasks)) for reason, tasks, _ in queue.drained] == [("wait", 8)]
    assert [(len(b.tasks), str(b.reason)) for b in queue.sent] == [
        (1, "upload"), (2, "upload"), (4, "count"), (1, "answer")]
    assert len({b.step for b in queue.sent}) == 1  # every batch left at the read's step


def test_the_batch_table_lists_what_left_and_why() -> None:
    queue = _queue()
    view = batch_table(queue.sent)
    assert [row[4] for row in view.rows] == [str(b.reason) for b in queue.sent]
    assert view.rows[-1][4] == "answer" and "ReadTensor" in view.rows[-1][2]


def test_the_graph_board_sends_the_graph_once_then_bindings() -> None:
    rows = graph_board([layers(0), layers(100)]).rows
    fused = [row for row in rows if str(row[1]).startswith("fusion")]
    plain = [row for row in rows if row[1] == "without fusion"]
    assert [row[2] for row in plain] == [6, 6] and plain[0][3] == plain[1][3]
    assert fused[0][1].endswith("RegisterAndExecuteGraph") and fused[1][1].endswith("ExecuteGraph")
    assert fused[1][3] < fused[0][3]
