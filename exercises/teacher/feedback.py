"""Feedback per student after a regrade: one JSON file and one HTML page each (`--feedback DIR`).

Per exercise: the points, each check passed or failed, for a visible check the expected value
against the student's, and the hint level that would help (`routerlab exercises hint ID` gives
it). A hidden check shows its name and verdict, never its expected value: `StudentResult`
carries none (the judge drops it), and this module shows only what the result holds. The page is
one offline HTML file, with every value escaped.

The page opens on what a student needs first: the total, and one line per exercise with what to
do next, linked to its section. The sections of exercises that passed are folded (`<details>`),
so what is left to work on is what the page shows; a student opens a passed one to see why.
"""

from __future__ import annotations

import hashlib
import html
import json
from pathlib import Path
from typing import Any

from ...present.palette import INK, rule, tint
from ..catalog import HINT_LEVELS
from ..errors import GradesError
from ..files import write_text
from .classroom import ExerciseResult, StudentResult

FEEDBACK_FORMAT = "routerlab-feedback"


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@")
STEM_LIMIT = 64
"""The longest id used as its own file name; any other is a prefix and a digest."""


def file_stem(student_id: str) -> str:
    """A file name for an id, bounded and injective: an id of `_SAFE` characters (not starting
    with `.`) of at most `STEM_LIMIT` is its own name; any other is a readable prefix, `~`
    (which no such id holds) and a digest of the whole id. So `kim_1` and `kim+1` have two
    files, and a 300-character id a name the file system takes."""
    if student_id and len(student_id) <= STEM_LIMIT and set(student_id) <= _SAFE \
            and not student_id.startswith("."):
        return student_id
    prefix = "".join(c if c in _SAFE else "_" for c in student_id[:40]).lstrip(".")
    digest = hashlib.sha256(student_id.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    return f"{prefix}~{digest}"


def feedback_json(result: StudentResult, late: str = "") -> dict[str, Any]:
    return {
        "format": FEEDBACK_FORMAT, "student_id": result.student_id,
        "points": result.points, "points_possible": result.points_possible,
        **({"late": late} if late else {}),
        "graded_at": result.graded_at, "error": result.error,
        "exercises": [{
            "id": e.id, "title": e.title, "points": e.points,
            "points_possible": e.points_possible, "status": e.status, "problem": e.problem,
            "hint_level": e.hint_level, **({"variant": e.variant} if e.variant else {}),
            "checks": [{"name": c.name, "hidden": c.hidden, "status": c.status,
                        "message": c.message,
                        **({} if c.hidden else {"expected": c.expected, "got": c.got})}
                       for c in e.checks],
        } for e in result.exercises],
    }


def write_feedback(folder: Path, result: StudentResult, name: str | None = None,
                   late: str = "") -> tuple[Path, Path]:
    """Write `NAME.json` and `NAME.html` under `folder` (`name`: the row's own name, distinct
    when two folders claim one id; default the student id; `late`: how late the work was and
    what it cost, from the course's gradebook); GradesError names a path that failed."""
    stem = file_stem(name or result.student_id)
    data = feedback_json(result, late)
    page = write_text(folder / f"{stem}.html", feedback_html(result, late), "feedback page",
                      GradesError)
    doc = write_text(folder / f"{stem}.json", json.dumps(data, indent=2) + "\n",
                     "feedback file", GradesError)
    return page, doc


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _hint(level: int | None, exercise_id: str) -> str:
    if not level:
        return ""
    name = HINT_LEVELS[min(level, len(HINT_LEVELS)) - 1]
    return (f"<p class='hint'>Hint level {level} ({_e(name)}) would help: "
            f"<code>routerlab exercises hint {_e(exercise_id)}</code></p>")


def _exercise(e: ExerciseResult) -> str:
    rows = []
    for c in e.checks:
        shown = "" if c.hidden else (
            f"<td>{_e(c.expected)}</td><td>{_e(c.got)}</td>" if c.expected or c.got
            else "<td></td><td></td>")
        hidden = "<td colspan='2'><em>hidden check: no expected value shown</em></td>"
        rows.append(f"<tr class='{_e(c.status).replace(' ', '-')}'><td>{_e(c.status)}</td>"
                    f"<td>{_e(c.name)}</td><td>{_e(c.message)}</td>"
                    f"{hidden if c.hidden else shown}</tr>")
    table = ("<table><thead><tr><th>verdict</th><th>check</th><th>message</th>"
             "<th>expected</th><th>yours</th></tr></thead><tbody>" + "".join(rows)
             + "</tbody></table>") if rows else ""
    problem = f"<p class='problem'>{_e(e.problem)}</p>" if e.problem else ""
    variant = (f"<p class='variant'>Your variant: {_e(_variant(e.variant))}</p>"
               if e.variant else "")
    return (f"<details class='exercise' id='{_e(e.id)}'{'' if e.passed else ' open'}>"
            f"<summary><h2>{_e(e.id)}: {_e(e.title)} "
            f"<span class='points'>{e.points:g}/{e.points_possible}</span> "
            f"<span class='status'>{_e(e.status)}</span></h2></summary>{variant}{problem}{table}"
            f"{'' if e.passed else _hint(e.hint_level, e.id)}</details>")


def _overview(result: StudentResult) -> str:
    """One line per exercise, the ones left to work on first: its points and what to do."""
    rows = []
    for e in sorted(result.exercises, key=lambda e: e.passed):
        todo = ("done" if e.passed else
                f"hint level {e.hint_level}: routerlab exercises hint {e.id}" if e.hint_level
                else e.problem or e.status)
        rows.append(f"<tr class='{'done' if e.passed else 'todo'}'>"
                    f"<td><a href='#{_e(e.id)}'>{_e(e.id)}</a></td><td>{_e(e.title)}</td>"
                    f"<td>{e.points:g}/{e.points_possible}</td><td>{_e(todo)}</td></tr>")
    return ("<table id='overview'><thead><tr><th>exercise</th><th>title</th><th>points</th>"
            "<th>next</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _variant(params: dict[str, Any]) -> str:
    """A student's variant as their statement names it: `before = 3, more = 1`."""
    return ", ".join(f"{name} = {value}" for name, value in params.items())


_STYLE = f"""body{{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;
padding:0 1rem}}table{{border-collapse:collapse;width:100%}}
td,th{{border:1px solid {tint("muted", .4)};padding:.25rem .5rem;text-align:left;
vertical-align:top}}
tr.passed td:first-child,tr.done td:first-child{{color:{rule("ok")}}}
tr.failed td:first-child,tr.error td:first-child,.problem{{color:{rule("error")}}}
.points{{font-weight:normal;margin-left:1rem}}.status{{font-size:.8em;color:{INK}}}
details.exercise{{margin:.75rem 0}}summary{{cursor:pointer}}summary h2{{display:inline;
font-size:1.1em}}#overview{{margin-bottom:1.5rem}}"""


def feedback_html(result: StudentResult, late: str = "") -> str:
    summary = (f"<p id='summary'>{result.points:g} of {result.points_possible} points; "
               f"{result.passed} of {len(result.exercises)} exercises passed.</p>")
    summary += f"<p id='late' class='problem'>Handed in late: {_e(late)}</p>" if late else ""
    if result.error:
        summary += f"<p class='problem'>Your work could not be graded: {_e(result.error)}</p>"
    body = _overview(result) + "".join(_exercise(e) for e in result.exercises)
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>RouterLab feedback: {_e(result.student_id)}</title><style>{_STYLE}</style>"
            f"</head><body><h1>RouterLab feedback: {_e(result.student_id)}</h1>{summary}{body}"
            f"</body></html>\n")
