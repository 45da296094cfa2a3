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


def test_the_lanes_draw_a_wait_per_task_and_an_arrow_per_batch(pyplot: Any) -> None:
    queue = _queue()
    figure = wire_lanes(queue.sent, queue.batch.tasks)
    assert pyplot.get_fignums() == [], "returned closed: IPython shows it once"
    axis = figure.axes[0]
    assert [t.get_text() for t in axis.get_yticklabels()] == ["calls", "outgoing batch", "wire"]
    labels = [t.get_text() for t in axis.texts if t.get_text().startswith("batch ")]
    assert labels == [f"batch {b.number}: {b.reason}" for b in queue.sent]


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
