"""The build track in the notebook: the tour's flow on the learner's own router, the one their
workspace file of the last build checkpoint holds, beside the model's.

The learner's router is their file (`exercises/build_8.py`: every class of the track, the server
included), not cells: the build checkpoints are graded from the workspace files, so this reads
the same file and runs the same flow as `lab.check("build-8")` grades in the jail
(`routerlab.exercises.checks.build_server`), here in the kernel, step by step, beside the model.
A file still the starter's, or a router that stops, is said in one line, not a traceback.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any

from ..core import TableView
from ..exercises.checks.base import CheckFailure, Observation, Submission, to_data
from ..exercises.checks.build_common import TRACE
from ..exercises.checks.build_server import server
from ..exercises.learner.course import Course
from ..present import html as present_html
from ..present import text as present_text
from .lesson import Lesson

__all__ = ["BuildReport", "your_router"]

LAST = "build-8"
"""The checkpoint whose file holds the whole router."""


@dataclass(frozen=True)
class BuildReport:
    """The tour's flow on the learner's router against the model's, or why it did not run."""

    tone: str
    heading: str
    body: str
    steps: TableView | None = None

    def _repr_html_(self) -> str:
        parts = [present_html.callout(self.tone, self.heading, self.body)]
        if self.steps is not None:
            parts.append(present_html.table(self.steps))
        return "".join(parts)

    def __repr__(self) -> str:
        parts = [present_text.callout(self.tone, self.heading, self.body)]
        if self.steps is not None:
            parts.append(present_text.table(self.steps))
        return "\n".join(parts)


def your_router(lab: Lesson) -> BuildReport:
    """Run the tour's flow (upload, clone, add, quantize, the native moves, the bytes move, the
    two hops, reject, legacy, the reads) on the router in the learner's `build-8` file and on the
    model's, and compare every step; the call trace's verdict is the last row."""
    course = Course(lab.workspace)
    exercise = course.catalog.get(LAST)
    path = course.workspace.file_for(exercise)
    source = path.read_text(encoding="utf-8") if path.is_file() else ""
    if not source or source == exercise.starter():
        return BuildReport("info", f"{LAST}: your router is not written yet",
                           f"Write the track's classes into {path} (each checkpoint's file "
                           "carries the earlier ones forward) and run this cell again.")
    params = exercise.variant.defaults()
    module = types.ModuleType("myrouter")
    try:
        exec(compile(source, str(path), "exec"), module.__dict__)  # noqa: S102 (the learner's
        # own file, in the learner's own kernel: what `import` would run)
    except Exception as error:  # noqa: BLE001 - the learner's file: say what, not a traceback
        return BuildReport("error", f"{path.name} does not load",
                           f"{type(error).__name__}: {error}")
    probe = next(c.probe for c in server.checks if c.probe and "tour" in c.name)
    model = probe(server.model_subject(params))
    try:
        got: Observation = probe(Submission(module, params))
        stopped = ""
    except CheckFailure as failure:
        got, stopped = [], failure.message
    except Exception as error:  # noqa: BLE001 - the learner's class raised: say which
        got, stopped = [], f"{type(error).__name__}: {error}"
    steps, same = _side_by_side(got, model)
    if stopped:
        return BuildReport("error", "Your router stopped", stopped, steps)
    if same:
        return BuildReport("ok", "Your router ran the tour bit-exact against the model's",
                           "Every stored word, scale, registry and clone count is the model's, "
                           "and no function of RouterLab's router logic ran.", steps)
    return BuildReport("error", "Your router is NOT the model's at every step",
                       "The first ✗ row is where it parts; lab.check(\"build-8\") says more.",
                       steps)


def _side_by_side(got: Observation, want: Observation) -> tuple[TableView, bool]:
    rows, styles = [], {}
    for index, (label, expected) in enumerate(want):
        mine = to_data(got[index][1]) if index < len(got) else "(did not get here)"
        same = mine == to_data(expected)
        name = "router logic of RouterLab's that ran (None: none)" if label == TRACE else label
        rows.append([_short(name, 70), _short(mine), _short(to_data(expected)),
                     "✓" if same else "✗"])
        if not same:
            styles[index] = "error"
    return TableView("the tour's flow on your router (build-8's file) and on the model's",
                     ["step", "your router", "the model's", "same"], rows,
                     styles=styles), not styles


def _short(value: Any, width: int = 90) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= width else text[:width - 1] + "…"

