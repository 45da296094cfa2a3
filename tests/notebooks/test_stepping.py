"""`routerlab.notebook.stepping`: the step-through's pages, slider and static fallback, and the
program recorder (`Tape`) against the core's own trace and registries. No kernel is started."""

from __future__ import annotations

import html
from typing import Any

import pytest

from routerlab.core.runtime import Runtime
from routerlab.notebook.stepping import STEPPER_CLASS, Stepper, Tape, stepper
from routerlab.present.html import html_of
from routerlab.present.html import table as to_html


@pytest.fixture
def taped() -> tuple[Runtime, Tape, list[list[int]]]:
    """Notebook 02's program on a tape, with cpu:0's ids read from the runtime after each line."""
    rt = Runtime()
    tape = Tape(rt)
    seen: list[list[int]] = []

    def snap(caption: str) -> None:
        tape.snap(caption)
        seen.append(rt.handle_ids("cpu:0"))

    a = rt.tensor([1.0, 2.0, 3.0], device="cpu:0", dtype="f32");  snap("a = tensor")  # noqa: E702
    b = rt.clone(a);                                              snap("b = a.clone()")  # noqa: E702
    rt.drop(a);                                                   snap("drop(a): b is left")  # noqa: E702
    rt.mul(rt.clone(b), b);                                       snap("c = b.clone() * b")  # noqa: E702
    return rt, tape, seen


def test_tape_records_one_snapshot_per_line_as_the_core_reports_it(
        taped: tuple[Runtime, Tape, list[list[int]]]) -> None:
    rt, tape, seen = taped
    assert [s.caption for s in tape.snaps] == ["a = tensor", "b = a.clone()",
                                               "drop(a): b is left", "c = b.clone() * b"]
    assert [s.handles["cpu:0"] for s in tape.snaps] == seen == [[0], [0], [0], [1]]
    # the events of each snapshot are exactly the trace, cut at the snapshots
    assert [e for s in tape.snaps for e in s.events] == rt.trace.read()
    sent = [[e.kind for e in s.events if e.kind in ("op", "drop")] for s in tape.snaps]
    assert sent[1] == sent[2] == []  # neither a clone nor dropping one of two clones sends


def test_stepper_has_a_page_per_snapshot_showing_that_snapshot(
        taped: tuple[Runtime, Tape, list[list[int]]]) -> None:
    rt, tape, _ = taped
    steps = tape.stepper()
    total = len(tape.snaps)
    for index, snap in enumerate(tape.snaps):
        page = steps.page(index)
        assert f"Line {index + 1} / {total}</b>: {html.escape(snap.caption)}" in page
        assert to_html(snap.registries["cpu:0"]) in page  # the registry as it was then
        for event in snap.events:
            assert html.escape(event.detail) in page
        # a line the trace recorded nothing for says so instead of showing an empty table
        assert ("Nothing was sent" in page) == (not snap.events)
    assert "Nothing was sent" not in steps.page(3)  # the mul
    assert len({steps.page(i) for i in range(total)}) == total
    with pytest.raises(IndexError):
        steps.page(total)


def test_widget_slider_spans_the_snapshots_and_moves_the_output_pane(
        taped: tuple[Runtime, Tape, list[list[int]]]) -> None:
    pytest.importorskip("ipywidgets")
    _, tape, _ = taped
    steps = tape.stepper(title="Step through the program")
    box = steps.widget()
    assert STEPPER_CLASS in box._dom_classes, "the browser test finds steppers by this class"
    heading, controls, pane = box.children
    back, slider, ahead = controls.children
    assert "Step through the program" in heading.value
    assert (slider.min, slider.max, slider.value) == (0, len(tape.snaps) - 1, 0)
    assert pane.value == steps.page(0)
    for index in (2, 3, 0, 1):  # moving the slider shows that step's page
        slider.value = index
        assert pane.value == steps.page(index)
    ahead.click()
    assert slider.value == 2 and pane.value == steps.page(2)
    back.click(); back.click(); back.click()  # noqa: E702  (stops at the first step)
    assert slider.value == 0 and pane.value == steps.page(0)
    slider.value = slider.max
    ahead.click()  # and at the last
    assert slider.value == slider.max and pane.value == steps.page(slider.max)


def test_static_fallback_lists_every_step(
        taped: tuple[Runtime, Tape, list[list[int]]], monkeypatch: pytest.MonkeyPatch) -> None:
    _, tape, _ = taped
    steps = tape.stepper()
    static = steps.static_html()
    assert static == to_html(tape.view())
    for index, snap in enumerate(tape.snaps):
        assert f"{index + 1}</td><td style='text-align:left;vertical-align:top'>" \
               f"{html.escape(snap.caption)}</td>" in static
    assert "mul(#0 ReadOnly, #0 ReadWrite) -&gt; #1" in static  # what line 4 sent

    def no_widgets(self: Stepper) -> Any:
        raise ImportError("no ipywidgets")

    monkeypatch.setattr(Stepper, "widget", no_widgets)
    bundle = steps._repr_mimebundle_()
    assert bundle == {"text/plain": f"<{steps.title}: {len(tape.snaps)} lines>",
                      "text/html": static}


def test_display_carries_the_widget_and_the_static_table() -> None:
    pytest.importorskip("ipywidgets")
    steps = stepper([("one <first>", "body 1"), ("two", "body 2"), ("three", "body 3")],
                    title="Three")
    bundle = steps._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == "<Three: 3 steps>"
    static = bundle["text/html"]
    for number, caption in enumerate(["one <first>", "two", "three"], start=1):
        assert f">{number}</td>" in static and html.escape(caption) in static
    assert "&lt;first&gt;" in steps.page(0) and "<first>" not in steps.page(0)
    assert html_of("body 2") in steps.page(1)


def test_a_stepper_needs_a_frame() -> None:
    with pytest.raises(ValueError, match="at least one frame"):
        Stepper([])
