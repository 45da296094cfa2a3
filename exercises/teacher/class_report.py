"""`teacher report`: one offline HTML page a teacher reads after a regrade.

A summary first (who was graded, the class's points, the exercise most failed, what the numbers
can be trusted for), then figures and tables: the pass rate and the split of points (full,
partial, none) of every exercise, the class's totals, the checks failed most, the commonest
wrong answers of each predict exercise, and the attempts and hint levels the students'
progress files report, labelled *self-reported*. When the course's gradebook has an assignment,
the students who handed in late, by how much and what it cost (what `recheck` wrote beside its
journal, `NAME.late.json`). Figures are matplotlib's, drawn without pyplot
(no global state, no display) and inlined as SVG; tables are the presentation layer's
(`routerlab.present.html`), so the page needs nothing but itself. Every text is escaped.
"""

from __future__ import annotations

import html
import io
import re
import statistics
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...core import Cell, TableView
from ...present.html import table
from ...present.palette import AMBER, BLUE, GREEN, INK, RED, tint
from .analytics import ClassAnalytics, ExerciseStats

SELF = "self-reported"


def write_report(grades_dir: Path, out: Path) -> tuple[ClassAnalytics, Path]:
    """`teacher report` as one call: the class's numbers from what `recheck` wrote into
    `grades_dir`, and the page written to `out` (refused before anything is read when `out`
    cannot be written)."""
    from ..errors import GradesError
    from ..files import check_target, write_text
    from .analytics import analyse, load_plan, load_results

    check_target(out, "report", GradesError)
    data = analyse(load_results(grades_dir), load_plan(grades_dir))
    return data, write_text(out, report_html(data, late=load_late(grades_dir)), "report",
                            GradesError)


def load_late(grades_dir: Path) -> list[list[Cell]]:
    """(student, how late and what it cost, points lost) for every late row `recheck` found in
    `grades_dir`; a lateness file that cannot be read adds none (as a plan that cannot be
    read, `routerlab.exercises.teacher.gradebook.read_plan`)."""
    from ...core.base.safe_io import load_json
    from ..errors import GradesError
    from .regrade import LATE_FORMAT

    rows: list[list[Cell]] = []
    for path in sorted(grades_dir.glob("*.late.json")):
        try:
            data = load_json(path, what="lateness file", error=GradesError)
            if data.get("format") != LATE_FORMAT:
                continue
            rows += [[str(row["key"]), str(row["late"]), float(row["points_lost"])]
                     for row in data["students"]]
        except (GradesError, KeyError, TypeError, ValueError, AttributeError):
            continue
    return rows


def report_html(data: ClassAnalytics, title: str = "RouterLab class report",
                late: list[list[Cell]] | None = None) -> str:
    """The whole page (see the module docstring); `late`: `load_late`'s rows."""
    parts = [_summary(data, late or []),
             _section("Exercises", _figure(_pass_rates(data.exercises),
                                           "Pass rate per exercise (regraded)"),
                      _figure(_points_split(data.exercises),
                              "Points per exercise: full, partial, none (regraded)"),
                      table(_exercise_table(data))),
             _section("The class's points", _figure(_totals(data),
                                                     "Each student's total (regraded)")),
             _section("Hardest checks", table(_hardest_table(data))),
             _section("Commonest wrong answers (predict exercises)", table(_wrong_table(data))),
             _section(f"Attempts and hints ({SELF})", _self_note(data),
                      _figure(_self_reported(data.exercises),
                              f"Median attempts and mean hint level per exercise ({SELF})")
                      if data.self_reported else "")]
    if late:
        parts.append(_section("Late hand-ins", table(TableView(
            "Handed in after the due date or extension (the course's gradebook: the hub's "
            "file times, the late policy)", ["student", "how late, and the penalty",
                                             "points lost"], late))))
    if data.errors:
        parts.append(_section("Not graded", table(TableView(
            "Students whose regrade could not finish", ["student", "reason"],
            [[s, why] for s, why in sorted(data.errors.items())]))))
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p class='muted'>Made {stamp} by routerlab teacher "
            f"report. Offline: this file holds every figure and table.</p>"
            f"{''.join(parts)}</body></html>\n")


_STYLE = ("body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
          "table{border-collapse:collapse;margin:.5em 0}td,th{padding:.2em .6em;"
          f"border-bottom:1px solid {tint('muted', .3)}}}figure{{margin:1em 0}}"
          "figcaption,.muted{opacity:.75}.summary li{margin:.2em 0}svg{max-width:100%;"
          "height:auto}")


def _section(heading: str, *body: str) -> str:
    return f"<section><h2>{html.escape(heading)}</h2>{''.join(body)}</section>"


def _summary(data: ClassAnalytics, late: list[list[Cell]]) -> str:
    n = len(data.students)
    items = [f"{n} students regraded" + (f"; {len(data.errors)} could not be graded"
                                          if data.errors else "")
             + (f"; {len(data.absent)} handed in nothing ({', '.join(data.absent[:20])}"
                f"{', …' if len(data.absent) > 20 else ''})" if data.absent else "")
             + f"; {data.class_size} in the class"]
    if data.totals:
        items.append(f"Points: median {statistics.median(data.totals):g} of "
                     f"{data.points_possible}, mean {statistics.fmean(data.totals):.1f}, "
                     f"lowest {min(data.totals):g}, highest {max(data.totals):g}")
    ranked = sorted((e for e in data.exercises if e.tried), key=lambda e: e.pass_rate)
    if ranked:
        items.append(f"Most failed exercise: {ranked[0].id} ({ranked[0].title}), passed by "
                     f"{ranked[0].pass_rate:.0%}; most passed: {ranked[-1].id}, "
                     f"{ranked[-1].pass_rate:.0%}")
    if late:
        lost = sum(float(row[2] or 0) for row in late)
        items.append(f"Late: {len(late)} students handed in after their due date or extension, "
                     f"{lost:g} points taken off by the late policy (see Late hand-ins)")
    hardest = data.hardest(1)
    if hardest:
        items.append(f"Hardest check: {hardest[0].exercise_id} / {hardest[0].name}, failed by "
                     f"{hardest[0].failed} of {hardest[0].ran}")
    isolation = ("graded in the OS jail" if data.isolation == {"jail"} else
                 "graded WITHOUT isolation for some or all students (--no-isolation): a "
                 "student's code could have changed its own result")
    items.append(f"Trust: pass rates, points, checks and wrong answers come from the regrade "
                 f"({isolation}). Attempts and hint levels are {SELF}: the students' own "
                 f"progress files ({data.self_reported} of {n} found) could have been edited.")
    lis = "".join(f"<li>{html.escape(i)}</li>" for i in items)
    return f"<section class='summary'><h2>Summary</h2><ul>{lis}</ul></section>"


def _exercise_table(data: ClassAnalytics) -> TableView:
    rows: list[list[Cell]] = []
    styles = {}
    for i, e in enumerate(data.exercises):
        rows.append([e.id, e.title, e.kind, f"{e.pass_rate:.0%}",
                     f"{e.mean_points:.1f} / {e.points_possible}", e.missing,
                     _median(e.attempts), _mean(e.hint_levels)])
        if e.students and e.pass_rate < 0.5:
            styles[i] = "warn"
    return TableView("Per exercise", ["exercise", "title", "kind", "pass rate", "mean points",
                                      "not handed in", f"median attempts ({SELF})",
                                      f"mean hint level ({SELF})"], rows, styles=styles)


def _hardest_table(data: ClassAnalytics) -> TableView:
    rows: list[list[Cell]] = [[c.exercise_id, c.name, "hidden" if c.hidden else "visible",
                               f"{c.failed} / {c.ran}", f"{c.fail_rate:.0%}"]
                              for c in data.hardest()]
    return TableView("Checks failed by the largest share of students",
                     ["exercise", "check", "kind", "failed / ran", "fail rate"], rows)


def _wrong_table(data: ClassAnalytics) -> TableView:
    rows: list[list[Cell]] = [[exercise_id, check, answer, count]
                              for (exercise_id, check), answers in sorted(data.wrong.items())
                              for answer, count in answers]
    return TableView("What students predicted instead, by kind of mistake (the declared wrong "
                     "answer it is, since each student's variant has its own numbers; the "
                     "answer written where the exercise declares none), most common first",
                     ["exercise", "part", "mistake or answer written", "students"], rows)


def _self_note(data: ClassAnalytics) -> str:
    if data.self_reported:
        return ("<p class='muted'>Read from each submission's .routerlab/state.json, which the "
                "student's machine wrote: a guide to where students struggled, not evidence.</p>")
    return ("<p class='muted'>No submission held a progress file (.routerlab/state.json): "
            "nothing self-reported to show.</p>")


def _median(values: list[int]) -> str:
    return f"{statistics.median(values):g}" if values else "—"


def _mean(values: list[int]) -> str:
    return f"{statistics.fmean(values):.1f}" if values else "—"


# --- figures ----------------------------------------------------------------------------------


def _figure(svg: str, caption: str) -> str:
    return (f"<figure class='routerlab-figure'>{svg}<figcaption>{html.escape(caption)}"
            f"</figcaption></figure>")


def _new(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100)
    figure.patch.set_alpha(0.0)
    axes = figure.subplots()
    axes.set_facecolor("none")
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        axes.spines[side].set_color(INK)
    axes.tick_params(colors=INK, labelsize=8)
    axes.xaxis.label.set_color(INK)
    axes.yaxis.label.set_color(INK)
    return figure, axes


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", transparent=True)
    text = buffer.getvalue()
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)  # a date and RDF names
    return text[text.index("<svg"):]  # inline: no XML declaration or doctype


def _pass_rates(exercises: list[ExerciseStats]) -> str:
    figure, axes = _new(9, max(2.5, 0.22 * len(exercises)))
    ids = [e.id for e in exercises][::-1]
    rates = [100 * e.pass_rate for e in exercises][::-1]
    # one hue of its own: green, amber and red mean full, partial and no points in the next chart
    axes.barh(ids, rates, color=BLUE.hex)
    axes.axvline(50, color=INK, linewidth=0.8, linestyle="--")
    axes.set_xlim(0, 100)
    axes.set_xlabel("students who passed (%)")
    return _svg(figure)


def _points_split(exercises: list[ExerciseStats]) -> str:
    figure, axes = _new(9, max(2.5, 0.22 * len(exercises)))
    ids = [e.id for e in exercises][::-1]
    full = [_share(e, lambda p, e=e: p >= e.points_possible) for e in exercises][::-1]
    none = [_share(e, lambda p: p <= 0) for e in exercises][::-1]
    partial = [100 - f - n for f, n in zip(full, none, strict=True)]
    axes.barh(ids, full, color=GREEN.hex, label="full points")
    axes.barh(ids, partial, left=full, color=AMBER.hex, label="partial")
    axes.barh(ids, none, left=[f + p for f, p in zip(full, partial, strict=True)],
              color=RED.hex, label="none")
    axes.set_xlim(0, 100)
    axes.set_xlabel("students (%)")
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=3, fontsize=8,
                frameon=False, labelcolor=INK)
    return _svg(figure)


def _share(e: ExerciseStats, test: Any) -> float:
    return 100 * sum(1 for p in e.points if test(p)) / e.students if e.students else 0.0


def _totals(data: ClassAnalytics) -> str:
    figure, axes = _new(7, 2.8)
    axes.hist(data.totals, bins=min(20, max(5, len(data.totals))),
              range=(0, max(data.points_possible, 1)), color=BLUE.hex)
    axes.set_xlabel(f"points (of {data.points_possible})")
    axes.set_ylabel("students")
    return _svg(figure)


def _self_reported(exercises: list[ExerciseStats]) -> str:
    figure, axes = _new(9, 3.2)
    shown = [e for e in exercises if e.attempts]
    xs = range(len(shown))
    axes.bar([x - 0.2 for x in xs], [statistics.median(e.attempts) for e in shown], width=0.4,
             color=BLUE.hex, label="median attempts")
    axes.bar([x + 0.2 for x in xs], [statistics.fmean(e.hint_levels) for e in shown],
             width=0.4, color=AMBER.hex, label="mean hint level (0-3)")
    axes.set_xticks(list(xs), [e.id for e in shown], rotation=70)
    axes.legend(fontsize=8, frameon=False, labelcolor=INK)
    return _svg(figure)
