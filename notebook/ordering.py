"""The same tasks submitted to one session in every order: what each order does.

A session runs its FIFO in submission order (`crates/burn-remote/src/server/worker.rs:9-18`),
so the order of two tasks can decide whether a program works. `Reorder` makes that visible: each
order runs on a fresh `Runtime` (a tensor `x` on one device, the tasks built from it by the
notebook's lambdas), submitted with `rt.submit` one after the other, and shows what the reads
returned, the panic if one came, the trace and the session afterwards. With ipywidgets it is a
toggle between the orders; without a widget front end, a table of every order.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

from ..core import Cell, OperationIr, RouterTensor, Runtime, TableView
from ..present.html import STEP_STYLE, html_of, table
from .display import Callout, with_widget
from .panics import catch_panic

__all__ = ["Reorder"]


@dataclass
class _Run:
    order: tuple[str, ...]
    outcome: str
    session: str
    html: str


@dataclass
class Reorder:
    """Tasks for one session, named, each built from a fresh tensor `x` (`task(name, build)`);
    displayed, every order of them, each run on a fresh runtime."""

    values: Sequence[float]
    device: str = "cpu:0"
    builders: dict[str, Callable[[RouterTensor], OperationIr]] = field(default_factory=dict)

    def task(self, name: str, build: Callable[[RouterTensor], OperationIr]) -> Reorder:
        self.builders[name] = build
        return self

    def run(self, order: Sequence[str]) -> _Run:
        """Submit the tasks in `order` on a fresh runtime and keep what happened."""
        rt = Runtime([self.device])
        x = rt.tensor(list(self.values), self.device, "f32")
        tasks = {name: build(x) for name, build in self.builders.items()}
        mark, got, running = len(rt.trace), [], ""
        with catch_panic() as caught:
            for running in order:
                data = rt.submit(self.device, tasks[running])
                if data is not None:
                    got.append(f"{running} returned {data.to_numpy().tolist()}")
        if caught.panicked:
            got.append(f"{running} panicked")
        session = rt.session(self.device)
        state = "alive" if session.ended is None else "ended (the worker panicked)"
        shown = (html_of(caught) + html_of(rt.trace.view(rt.trace.read(mark),
                                                          title=" → ".join(order)))
                 + html_of(session.view()))
        return _Run(tuple(order), "; ".join(got) or "nothing returned", state, shown)

    def runs(self) -> list[_Run]:
        return [self.run(order) for order in permutations(self.builders)]

    def view(self) -> TableView:
        rows: list[list[Cell]] = [[" → ".join(r.order), r.outcome, r.session]
                                  for r in self.runs()]
        return TableView(f"The same tasks in every order ({self.device})",
                         ["submitted", "what came back", f"session {self.device} afterwards"],
                         rows)

    def widget(self) -> Any:
        import ipywidgets as widgets

        runs = {" → ".join(r.order): r for r in self.runs()}
        toggle = widgets.ToggleButtons(options=list(runs), description="order")
        pane = widgets.HTML(self._page(runs[toggle.value]))

        def on_pick(change: dict[str, Any]) -> None:
            pane.value = self._page(runs[change["new"]])

        toggle.observe(on_pick, names="value")
        return widgets.VBox([toggle, pane])

    @staticmethod
    def _page(run: _Run) -> str:
        return (f"<div class='routerlab-step'>{STEP_STYLE}<b>{html.escape(run.outcome)}</b>; "
                f"session: {html.escape(run.session)}{run.html}</div>")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        if not self.builders:
            return {"text/html": Callout("info", "No tasks yet: add them with .task()")
                    ._repr_html_()}
        return with_widget({"text/plain": f"<{len(self.builders)} tasks, every order>",
                            "text/html": table(self.view())}, self.widget)
