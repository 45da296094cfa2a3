"""The capstone in the notebook: the learner's router assembled from their own pieces, the tour's
quantized flow run through it and through the model's, side by side.

The pieces are the functions the learner wrote in earlier checkpoints, passed as they are in the
kernel (`your_router(get_handle, status_for, ...)`): they are the learner's own cells, already
running here. A piece still missing, or still a starter's stub, runs as the model's and is marked
in the first table, so the router runs at every stage and says what is left. The wiring is the
capstone checkpoint's own (`routerlab.exercises.checks.capstone`), so what this shows is what
`lab.check("capstone-1", ...)` grades, there in the jail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from ..core import TableView
from ..exercises.catalog import load_catalog
from ..exercises.checks.base import CheckFailure, Observation, Submission, to_data
from ..exercises.checks.capstone import (
    ARM,
    PIECES,
    capstone,
    flows,
    model_register,
    tour_flow,
)
from ..present import html as present_html
from ..present import text as present_text
from .lesson import unwritten

__all__ = ["RouterReport", "written", "your_router"]

MODELS_PIECE = "the model's: still to write"
"""How a piece the learner has not written yet is marked."""


@dataclass(frozen=True)
class RouterReport:
    """What the learner's router did: whose each piece is, and each step against the model."""

    pieces: TableView
    flows: tuple[TableView, ...]
    left: tuple[str, ...]
    """The pieces still the model's."""
    exact: bool
    """Every step of every flow the same as the model's, bit for bit."""
    stopped: str = ""
    """Why the learner's router stopped, when one of their pieces raised."""

    def _heading(self) -> tuple[str, str, str]:
        if self.stopped:
            return "error", "Your router stopped", self.stopped
        what = "bit-exact against the model" if self.exact else "NOT the model's at every step"
        if self.left:
            return ("warn", f"Your router ran, {what}; still the model's: {', '.join(self.left)}",
                    "Write each of those pieces in its cell above and run the router again.")
        return ("ok" if self.exact else "error", f"Your router, every piece yours: {what}", "")

    def _repr_html_(self) -> str:
        tone, heading, body = self._heading()
        return "".join([present_html.callout(tone, heading, body),
                        present_html.table(self.pieces),
                        *(present_html.table(flow) for flow in self.flows)])

    def __repr__(self) -> str:
        tone, heading, body = self._heading()
        return "\n".join([present_text.callout(tone, heading, body),
                          present_text.table(self.pieces),
                          *(present_text.table(flow) for flow in self.flows)])


def written(*pieces: Callable[..., Any]) -> tuple[Callable[..., Any], ...]:
    """The pieces the learner has written: a starter's stub (`...`, `pass`, `raise
    NotImplementedError`) is left out, so the check lists it as still the model's."""
    return tuple(p for p in pieces if not unwritten(p))


def your_router(*pieces: Callable[..., Any]) -> RouterReport:
    """Assemble a router from the learner's functions (any of the capstone's pieces, by their
    names) and run the tour's quantized flow through it and through the model's."""
    mine = {getattr(p, "__name__", ""): p for p in written(*pieces) if callable(p)}
    known = {piece.name for piece in PIECES}
    spaces = {name: function for name, function in mine.items() if name in known}
    if ARM not in spaces:
        spaces[ARM] = model_register
    params = load_catalog().get(capstone.exercise_id).variant_params()  # the catalog's own
    learner = Submission(SimpleNamespace(**spaces), params)  # type: ignore[arg-type]
    model = capstone.model_subject(params)  # the model's router: every piece its own
    left = tuple(p.name for p in PIECES if p.name not in mine)
    rows = [[p.name, p.exercise + (f" ({p.notebook})" if p.notebook else " (terminal)"), p.role,
             "yours" if p.name in mine else MODELS_PIECE] for p in PIECES]
    table = TableView("the pieces of your router", ["piece", "written in", "its job", "whose"],
                      rows, styles={i: "warn" for i, p in enumerate(PIECES) if p.name not in mine})
    views, exact, stopped = [], True, ""
    for title, values, scheme, profile in flows(params):
        want = tour_flow(model, values, scheme, profile)
        try:
            got: Observation = tour_flow(learner, values, scheme, profile)
        except CheckFailure as failure:
            got, stopped = [], failure.message
        except Exception as error:  # noqa: BLE001 - the learner's piece raised: say which
            got, stopped = [], f"{type(error).__name__}: {error}"
        view, same = _side_by_side(title, got, want)
        views.append(view)
        exact = exact and same and not stopped
    return RouterReport(table, tuple(views), left, exact, stopped)


def _side_by_side(title: str, got: Observation, want: Observation) -> tuple[TableView, bool]:
    rows, styles = [], {}
    for index, (label, expected) in enumerate(want):
        mine = to_data(got[index][1]) if index < len(got) else "(did not get here)"
        same = mine == to_data(expected)
        rows.append([label, _short(mine), _short(to_data(expected)), "✓" if same else "✗"])
        if not same:
            styles[index] = "error"
    return TableView(title, ["step", "your router", "the model's", "same"], rows,
                     styles=styles), not styles


def _short(value: Any, width: int = 90) -> str:
    text = repr(value)
    return text if len(text) <= width else text[:width - 1] + "…"
