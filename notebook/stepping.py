"""Stepping through: frames behind a slider (`Stepper`), and a program recorded line by line
(`Tape`).

A `Stepper`'s display carries both an ipywidgets slider and a static HTML table: JupyterLab shows
the widget when its widget manager is there, any other front end (nbclient, nbconvert, GitHub)
the table. A `Tape` keeps, after each line of a small program, what the core reports: the trace
events of that line and every device's registry.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core import Cell, TableView
from ..present.html import STEP_STYLE, html_of, table
from ..present.text import table as text_table
from .display import Callout, with_widget

__all__ = ["Stepper", "Tape", "handoff", "stepper"]

STEPPER_CLASS = "routerlab-stepper"
"""The CSS class of a stepper's widget box: how a test (or a stylesheet) tells a stepper's slider
from an experiment's slider."""


@dataclass
class Stepper:
    """Frames to step through with a slider; a static HTML table where widgets do not render.

    Each frame is `(caption, body)`, the body anything `html_of` can show (a TableView, say).
    The display carries both the widget and the static HTML: JupyterLab shows the widget when its
    widget manager is there, and any other front end (nbclient, nbconvert, GitHub) the table.
    """

    frames: Sequence[tuple[str, Any]]
    title: str = "Step through"
    static: Any = None
    """What to show without widgets (default: every caption in a numbered table)."""
    unit: str = "step"
    """What one frame is (a Tape's frames are the lines of a program), so that its numbers are
    never confused with the trace's own `step` column."""
    _pages: list[str] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.frames:
            raise ValueError("a Stepper needs at least one frame")
        total = len(self.frames)
        self._pages = [
            f"<div class='routerlab-step'>{STEP_STYLE}<div><b>{self.unit.capitalize()} "
            f"{i + 1} / {total}</b>: "
            f"{html.escape(caption)}</div>{html_of(body)}</div>"
            for i, (caption, body) in enumerate(self.frames)
        ]

    def static_html(self) -> str:
        if self.static is not None:
            return html_of(self.static)
        rows: list[list[Cell]] = [[i + 1, caption] for i, (caption, _) in enumerate(self.frames)]
        return table(TableView(self.title, [self.unit, "what happens"], rows))

    def page(self, index: int) -> str:
        """The HTML of one frame (what the slider shows at `index`)."""
        return self._pages[index]

    def widget(self) -> Any:
        import ipywidgets as widgets

        slider = widgets.IntSlider(value=0, min=0, max=len(self._pages) - 1,
                                   description=self.unit,
                                   readout=False, continuous_update=True)
        back = widgets.Button(description="◀ back", layout=widgets.Layout(width="7em"))
        ahead = widgets.Button(description="next ▶", layout=widgets.Layout(width="7em"))
        pane = widgets.HTML(self._pages[0])

        def on_slide(change: dict[str, Any]) -> None:
            pane.value = self._pages[change["new"]]

        def nudge(delta: int) -> Callable[[Any], None]:
            def click(_button: Any) -> None:
                slider.value = min(max(slider.value + delta, slider.min), slider.max)
            return click

        slider.observe(on_slide, names="value")
        back.on_click(nudge(-1))
        ahead.on_click(nudge(+1))
        heading = widgets.HTML(f"<b>{html.escape(self.title)}</b>")
        box = widgets.VBox([heading, widgets.HBox([back, slider, ahead]), pane])
        box.add_class(STEPPER_CLASS)
        return box

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return with_widget({"text/plain": f"<{self.title}: {len(self.frames)} {self.unit}s>",
                            "text/html": self.static_html()}, self.widget)


def stepper(frames: Sequence[tuple[str, Any]], title: str = "Step through",
            static: Any = None, unit: str = "step") -> Stepper:
    """`Stepper(frames, title, static, unit)`; display it as a cell's last expression."""
    return Stepper(list(frames), title, static, unit)


HANDOFF_NOTES = {
    "register_local": "the target session starts its RegisterTensorLocal task",
    "expose_local": "the source session starts its ExposeTensorLocal task",
    "wait": "nothing is exposed under this transfer id yet: the target parks inside "
            "local_comm.take (worker.rs:296-309), with no timeout",
    "get": "the source's interpreter takes the handle out of its registry with the status the "
           "client chose (get_tensor): ReadWrite removes the entry, ReadOnly keeps it",
    "expose": "the typed HandleKind is parked in LocalCommService under the transfer id, and "
              "every waiting taker is woken (local_comm.rs)",
    "take": "the target takes the HandleKind out of LocalCommService",
    "copy": "the target's backend copies the primitive onto its own device (B::*_to_device)",
    "register": "the target registers the copy under the id the client minted for it",
}
"""What each event of a same-peer hand-off means (docs/burn.md section 6)."""


def handoff(rt: Any, events: Sequence[Any],
            title: str = "The same-peer hand-off, event by event") -> Stepper:
    """A step-through of a same-peer transfer's trace `events`: each frame says what the event
    means and shows the trace up to it."""
    frames = []
    for index, event in enumerate(events):
        key = event.detail.split("(")[0] if event.kind == "op" else event.kind
        note = HANDOFF_NOTES.get(key, event.detail)
        frames.append((f"{event.device} {event.kind}: {note}",
                       rt.trace.view(events[:index + 1], title="The trace so far")))
    return Stepper(frames, title, unit="event")


@dataclass
class _Snap:
    caption: str
    events: list[Any]
    handles: dict[str, list[int]]
    registries: dict[str, TableView]


class Tape:
    """Snapshots of a `Runtime` taken between the lines of a small program.

    `tape.snap("what the line did")` after each line keeps that line's trace events and every
    device's registry as the core reports them (`rt.trace.read`, `rt.registries()`); the tape
    then shows as a step-through (`tape.stepper()`) or as one summary table (`tape.view()`).
    """

    def __init__(self, rt: Any) -> None:
        self.rt = rt
        self._mark = len(rt.trace)
        self.snaps: list[_Snap] = []

    def snap(self, caption: str) -> None:
        events = self.rt.trace.read(self._mark)
        self._mark = len(self.rt.trace)
        devices = [str(d) for d in self.rt.devices]
        self.snaps.append(_Snap(caption, events,
                                {d: self.rt.handle_ids(d) for d in devices},
                                self.rt.registries()))

    def view(self) -> TableView:
        """One row per snapshot: the line, the ops the sessions ran, the ids each registry holds."""
        devices = sorted({d for s in self.snaps for d in s.handles})
        rows: list[list[Cell]] = []
        for i, snap in enumerate(self.snaps):
            ops = "; ".join(e.detail for e in snap.events if e.kind in ("op", "drop"))
            rows.append([i + 1, snap.caption, ops or "(nothing sent)",
                         *(_ids(snap.handles.get(d)) for d in devices)])
        return TableView("The program, line by line", ["line", "code", "sent to the sessions",
                         *(f"{d} holds" for d in devices)], rows)

    def frames(self) -> list[tuple[str, Any]]:
        frames = []
        for snap in self.snaps:
            events: Any = self.rt.trace.view(snap.events, title="What the router did")
            if not snap.events:
                events = Callout("info", "Nothing was sent: no session saw this line.")
            tables = "".join(
                f"<div style='display:inline-block;vertical-align:top;margin-right:2em'>"
                f"{html_of(view)}</div>" for view in snap.registries.values())
            frames.append((snap.caption, _Html(html_of(events) + tables)))
        return frames

    def stepper(self, title: str = "Step through the program") -> Stepper:
        return Stepper(self.frames(), title, static=self.view(), unit="line")

    def _repr_html_(self) -> str:
        return table(self.view())

    def __repr__(self) -> str:
        return text_table(self.view())


def _ids(ids: list[int] | None) -> str:
    if ids is None:
        return "—"
    return ", ".join(f"#{i}" for i in ids) if ids else "(empty)"


@dataclass(frozen=True)
class _Html:
    text: str

    def _repr_html_(self) -> str:
        return self.text
