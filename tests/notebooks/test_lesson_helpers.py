"""The notebook helpers of the lessons (issue 13): the live router drawing, the same tasks in
every order, and the same-peer hand-off event by event; each with the view a front end without
widgets shows. No kernel is started."""

from __future__ import annotations

from typing import Any

import pytest

from routerlab.core import READ_ONLY, READ_WRITE, DropOp, ReadOp, Runtime, TensorIr
from routerlab.notebook import Diagram, Reorder, handoff
from routerlab.notebook.ordering import Reorder as ReorderClass
from routerlab.present.diagram import deployment_svg


def _read_and_drop() -> Reorder:
    return (Reorder([1.0, 2.0], "cpu:0")
            .task("read", lambda x: ReadOp(TensorIr(x.id, x.shape, READ_ONLY, x.dtype)))
            .task("drop", lambda x: DropOp(TensorIr(x.id, x.shape, READ_WRITE, x.dtype))))


def test_the_diagram_is_svg_of_the_runtime_as_it_is_when_shown(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rt = Runtime(["cpu:0"])
    diagram = Diagram(rt, "live")
    before = diagram._repr_mimebundle_()
    assert before["image/svg+xml"] == deployment_svg(rt.deployment(), "live")
    assert before["text/plain"] == "<router: cpu:0: []>"
    rt.tensor([1.0], "cpu:0", "f32")
    assert "registry: #0" in diagram._repr_mimebundle_()["image/svg+xml"]
    shown: list[tuple[str, Any, str]] = []
    import IPython.display

    monkeypatch.setattr(IPython.display, "display",
                        lambda obj, display_id: shown.append(("display", obj, display_id)))
    monkeypatch.setattr(IPython.display, "update_display",
                        lambda obj, display_id: shown.append(("update", obj, display_id)))
    diagram.live()
    diagram.refresh()
    assert shown == [("display", diagram, diagram.display_id),
                     ("update", diagram, diagram.display_id)]
    assert Diagram(rt).display_id != diagram.display_id


def test_reorder_runs_each_order_on_a_fresh_runtime() -> None:
    runs = {r.order: r for r in _read_and_drop().runs()}
    assert set(runs) == {("read", "drop"), ("drop", "read")}
    first, second = runs["read", "drop"], runs["drop", "read"]
    assert (first.outcome, first.session) == ("read returned [1.0, 2.0]", "alive")
    assert second.outcome == "read panicked" and second.session.startswith("ended")
    assert "Should have handle for tensor" in second.html  # the panic, as Rust prints it


def test_reorder_without_widgets_shows_one_row_per_order(monkeypatch: pytest.MonkeyPatch) -> None:
    demo = _read_and_drop()

    def no_widgets(self: ReorderClass) -> Any:
        raise ImportError("no ipywidgets")

    monkeypatch.setattr(ReorderClass, "widget", no_widgets)
    bundle = demo._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    page = bundle["text/html"]
    assert page.count("<tr") == 1 + 2  # the header and one row per order
    assert "read → drop" in page and "drop → read" in page and "read panicked" in page


def test_reorder_toggle_shows_the_order_picked() -> None:
    pytest.importorskip("ipywidgets")
    demo = _read_and_drop()
    toggle, pane = demo.widget().children
    assert list(toggle.options) == ["read → drop", "drop → read"]
    assert "read returned [1.0, 2.0]" in pane.value
    toggle.value = "drop → read"
    assert "read panicked" in pane.value and "ended" in pane.value
    assert "application/vnd.jupyter.widget-view+json" in demo._repr_mimebundle_()


def test_handoff_has_one_frame_per_event_starting_with_the_target_task() -> None:
    rt = Runtime()
    x = rt.tensor([5.0], "cpu:0", "f32")
    mark = len(rt.trace)
    rt.to_device(x, "cpu:1", arrival="target-first")
    events = rt.trace.read(mark)
    steps = handoff(rt, events)
    assert len(steps.frames) == len(events) and steps.unit == "event"
    captions = [caption for caption, _ in steps.frames]
    assert captions[0].startswith("cpu:1 op: the target session starts its RegisterTensorLocal")
    assert captions[1].startswith("cpu:1 wait: nothing is exposed")
    assert "Event 3 / 8" in steps.page(2) and "ExposeTensorLocal" in steps.page(2)
    assert steps.page(7).count("<tr") > steps.page(0).count("<tr")  # the trace so far grows
