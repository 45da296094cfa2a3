"""Descriptions of what the faces show, built once and rendered twice.

A `ReportView` (one check result) and a `ProgressView` (the list with its totals) are made of a
core `TableView` plus a few titled text blocks. The terminal renders them with rich
(`routerlab.cli.commands.exercises`), Jupyter through `_repr_html_` here, from the same
description, so a student sees the same verdict, the same rows and the same messages in both.
Only the way to ask for a hint differs (a command in the terminal, a function in a notebook).
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...core import Cell, TableView
from ...invocation import routerlab
from ...present import html as present
from ...present.html import table as to_html
from ..catalog import HINT_LEVELS, Exercise
from ..report import AT_GRADING, ERROR, FAILED, NOT_RUN, PASSED, CheckReport, Outcome
from .course import GiveUp, Hint, Status

TERMINAL, NOTEBOOK = "terminal", "notebook"
MAX_DETAILED_FAILURES = 3
"""Failures explained in full; more would bury the first one, which is usually the cause."""


@dataclass(frozen=True)
class Block:
    """A titled piece of preformatted text: one failure's explanation, the student's output."""

    title: str
    text: str
    style: str = ""
    """"error", "muted" or "" (renderers map it to colours / CSS)."""


@dataclass(frozen=True)
class ReportView:
    headline: str
    passed: bool
    table: TableView
    blocks: Sequence[Block] = field(default_factory=tuple)
    footer: str = ""

    def __str__(self) -> str:
        """Readable text, for a plain Python session (Jupyter uses the HTML below)."""
        lines = [self.headline, ""]
        lines += [f"  {row[2]:<8} {row[1]:<8} {row[0]}" for row in self.table.rows]
        for block in self.blocks:
            lines += ["", block.title, *(f"  {t}" for t in block.text.splitlines())]
        return "\n".join([*lines, "", self.footer] if self.footer else lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        head = present.bar(self.headline, "ok" if self.passed else "error")
        return (f"<div class='routerlab-check'>{head}{to_html(self.table)}"
                f"{''.join(_block_html(b) for b in self.blocks)}{_para(self.footer)}</div>")


@dataclass(frozen=True)
class ProgressView:
    table: TableView
    done: int
    total: int
    earned: int
    possible: int
    next_id: str | None
    notes: Sequence[str] = field(default_factory=tuple)
    class_mode: bool = False

    @property
    def summary(self) -> str:
        if self.class_mode:
            return (f"{self.done}/{self.total} exercises pass their visible checks; points come "
                    "when your teacher grades"
                    + (f"; next: {self.next_id}" if self.next_id else "; all done!"))
        return (f"{self.done}/{self.total} exercises passed, {self.earned}/{self.possible} points"
                + (f"; next: {self.next_id}" if self.next_id else "; all done!"))

    def __str__(self) -> str:
        rows = [" ".join(str(c) for c in row) for row in self.table.rows]
        return "\n".join([*self.notes, *rows, self.summary])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        bar = present.progress(self.done, self.total)
        notes = "".join(_para(n) for n in self.notes)
        return (f"<div class='routerlab-progress'>{notes}{bar}{_para(self.summary)}"
                f"{to_html(self.table)}</div>")


@dataclass(frozen=True)
class TextView:
    """A titled text (a hint, a solution, a statement) for the notebook; the CLI prints the same
    fields with rich."""

    title: str
    text: str
    code: bool = False

    def _repr_html_(self) -> str:
        body = (f"<pre>{html.escape(self.text)}</pre>" if self.code
                else "".join(_para(p) for p in self.text.split("\n\n")))
        return f"<div class='routerlab-text'><b>{html.escape(self.title)}</b>{body}</div>"

    def __str__(self) -> str:
        return f"{self.title}\n\n{self.text}"


def report_view(report: CheckReport, exercise: Exercise, face: str = TERMINAL) -> ReportView:
    """The one description of a check result."""
    passed, total = report.counts()
    name = f"{exercise.id} · {exercise.title}"
    attempt = f" (attempt {report.attempt})" if report.attempt else ""
    if report.untouched:
        attempt = " (your file is still the starter: not counted as an attempt)"
    if report.passed and report.at_grading:
        headline = (f"✓ {name}: all {total} visible checks pass; {report.at_grading} hidden "
                    f"{'check runs' if report.at_grading == 1 else 'checks run'} when your "
                    f"teacher grades{attempt}")
    elif report.passed:
        headline = f"✓ {name}: all {total} checks pass, {exercise.points} points{attempt}"
    elif report.problem is not None and not report.outcomes:
        headline = f"✗ {name}: {report.problem.name} failed{attempt}"
    else:
        headline = f"✗ {name}: {total - passed} of {total} checks fail{attempt}"
    rows = [[o.name, "hidden" if o.hidden else "visible", o.status] for o in report.outcomes]
    styles = {i: _row_style(o) for i, o in enumerate(report.outcomes)}
    table = TableView(f"Checks of {exercise.id}", ["check", "kind", "result"], rows, styles=styles)
    groups: dict[tuple[str, tuple[str, ...]], list[Outcome]] = {}
    for outcome in report.failures:
        groups.setdefault((outcome.message, tuple(outcome.traceback)), []).append(outcome)
    blocks = [_failure_block(same, exercise, face)
              for same in list(groups.values())[:MAX_DETAILED_FAILURES]]
    hidden_more = len(groups) - MAX_DETAILED_FAILURES
    if hidden_more > 0:
        blocks.append(Block("…", f"{hidden_more} more failing checks; fix the ones above first, "
                                 "they are often the cause", "muted"))
    if report.output.strip():
        blocks.append(Block("your code printed", report.output.rstrip(), "muted"))
    footer = _footer(report, exercise, face)
    return ReportView(headline, report.passed, table, tuple(blocks), footer)


def progress_view(statuses: Sequence[Status], notes: Sequence[str] = ()) -> ProgressView:
    rows: list[list[Cell]] = []
    styles: dict[int, str] = {}
    for i, s in enumerate(statuses):
        e, r = s.exercise, s.record
        rows.append([e.number, e.id, e.title, e.kind.value, _points(s), s.label,
                     r.attempts, f"{r.hint_level}/{len(e.hints)}"])
        if s.done or r.status == "failed":
            styles[i] = "added" if s.done else "error"
    table = TableView("Exercises", ["#", "id", "title", "kind", "points", "status", "attempts",
                                    "hints"], rows, styles=styles)
    next_id = next((s.exercise.id for s in statuses if not s.done), None)
    return ProgressView(table, sum(s.done for s in statuses), len(statuses),
                        sum(s.earned for s in statuses), sum(s.exercise.points for s in statuses),
                        next_id, tuple(notes), any(s.class_mode for s in statuses))


def _points(status: Status) -> str:
    """Points earned of the exercise's; in a class workspace only the teacher's grading knows."""
    if status.class_mode:
        return f"—/{status.exercise.points}"
    return f"{status.earned}/{status.exercise.points}"


def hint_view(hint: Hint, face: str = TERMINAL) -> TextView:
    exercise = hint.exercise
    title = f"{exercise.id}, hint {hint.level} of {len(exercise.hints)} ({hint.level_name})"
    more = ("" if hint.is_last
            else f"\n\nStill stuck? {_hint_call(exercise.id, hint.level + 1, face)}")
    return TextView(title, hint.text + more)


def give_up_view(given: GiveUp) -> TextView:
    """What giving up shows, in both faces: the model's answers, or the worked solution."""
    exercise = given.exercise
    cost = ("no points for it from now on" if given.forfeited
            else "you had passed it already, so your points stay")
    title = (f"{exercise.id}: the solution your teacher released" if given.released
             else f"{exercise.id}: you gave up ({cost})")
    if given.answers:
        lines = [f"{name} = {value!r}" for name, value in given.answers.items()]
        return TextView(title, "\n".join(["# the model's answers", *lines,
                                           f"# the worked solution: {given.solution.path}"]),
                        code=True)
    return TextView(title, given.solution.text, code=True)


def _hint_call(exercise_id: str, level: int, face: str) -> str:
    """How to ask for a hint level in this face."""
    if face == NOTEBOOK:  # a notebook's checkpoints are `lab = lesson(...)`
        return f'lab.hint("{exercise_id}", {level})'
    return routerlab(f"exercises hint {exercise_id} --level {level}")


def _failure_block(same: list[Outcome], exercise: Exercise, face: str) -> Block:
    """One failure explained; `same` are the checks that failed with this very message."""
    outcome = same[0]
    lines = [outcome.message]
    if outcome.expected is not None:
        lines.append(f"  expected:  {outcome.expected}")
    if outcome.got is not None:
        lines.append(f"  your code: {outcome.got}")
    if outcome.traceback:
        lines += ["", "where, in your code:", *(f"  {t}" for t in outcome.traceback)]
    if outcome.hint and outcome.hint <= len(exercise.hints):
        level = HINT_LEVELS[outcome.hint - 1]
        how = _hint_call(exercise.id, outcome.hint, face)
        lines += ["", f"this hint may help ({level}): {how}"]
    if len(same) > 1:
        more = len(same) - 1
        what = "1 more check fails" if more == 1 else f"{more} more checks fail"
        lines.insert(1, f"(and {what} the same way)")
    kind = "hidden check" if outcome.hidden else "check"
    return Block(f"✗ {kind}: {outcome.name}", "\n".join(lines), "error")


def _footer(report: CheckReport, exercise: Exercise, face: str) -> str:
    if report.at_grading and report.passed:
        return ("Well done! The hidden checks, your points and the solution come when your "
                "teacher grades.")
    if report.passed:
        how = (f'lab.solution("{exercise.id}")' if face == NOTEBOOK
               else routerlab(f"exercises solution {exercise.id}"))
        first = "Well done! " if report.first_pass else ""
        return f"{first}The reference solution is now open: {how}"
    where = "this notebook's code" if face == NOTEBOOK else f"exercises/{exercise.file_name}"
    return f"Edit {where} and check again."


def _row_style(outcome: Outcome) -> str:
    return {PASSED: "added", FAILED: "error", ERROR: "error", NOT_RUN: "muted",
            AT_GRADING: "muted"}[outcome.status]


def _block_html(block: Block) -> str:
    return present.block(block.title, block.text, block.style)


def _para(text: str) -> str:
    return f"<p>{html.escape(text)}</p>" if text else ""


LIST_HEADER = ("#", "id", "title", "kind", "points", "status", "tries", "hints")
_WRAPPED = (2, 5)
"""The columns that wrap (title, status); the others are kept whole."""


def list_rows(statuses: Sequence[Status]) -> list[list[str]]:
    return [[str(s.exercise.number), s.exercise.id, s.exercise.title, s.exercise.kind.value,
             _points(s), s.label, str(s.record.attempts),
             f"{s.record.hint_level}/{len(s.exercise.hints)}"] for s in statuses]


def list_lines(statuses: Sequence[Status], width: int) -> list[str]:
    """`exercises list` as plain lines of at most `width` characters. Every column is kept; the
    title and status wrap at spaces and only split a word when the terminal is narrower than
    the longest word needs (never at 80 columns)."""
    rows = [list(LIST_HEADER), *list_rows(statuses)]
    natural = [max(len(r[c]) for r in rows) for c in range(len(LIST_HEADER))]
    fewest = [max((len(w) for r in rows for w in r[c].split()), default=1) if c in _WRAPPED
              else natural[c] for c in range(len(LIST_HEADER))]
    widths = list(natural)
    room = width - (len(widths) - 1)
    for column in (2, 5):  # shrink the title first, then the status
        excess = sum(widths) - room
        if excess > 0:
            widths[column] = max(fewest[column], widths[column] - excess)
    excess = sum(widths) - room
    if excess > 0:  # narrower than the longest words: the title gives way, never a column
        widths[2] = max(4, widths[2] - excess)
    lines = []
    for row in rows:
        cells = [textwrap.wrap(cell, widths[c], break_long_words=True) or [""]
                 if c in _WRAPPED else [cell] for c, cell in enumerate(row)]
        for k in range(max(len(c) for c in cells)):
            parts = [(cells[c][k] if k < len(cells[c]) else "").ljust(widths[c])
                     for c in range(len(row))]
            lines.append(" ".join(parts).rstrip())
    return lines


def list_records(statuses: Sequence[Status], paths: Sequence[str]) -> list[dict[str, object]]:
    """`exercises list --json`: one record per exercise, with exactly these keys."""
    return [{"id": s.exercise.id, "title": s.exercise.title, "kind": s.exercise.kind.value,
             "points": s.earned, "max_points": s.exercise.points, "status": s.label,
             "path": path} for s, path in zip(statuses, paths, strict=True)]


_ITEM = re.compile(r"(\s*)([-*+]|\d+[.)])\s+")


def filled(text: str, width: int) -> list[str]:
    """A statement's Markdown as lines of at most `width` columns, for a terminal.

    The catalog's files break their lines by hand at about 100 columns; printed as they are, a
    terminal wraps each long line again and leaves a short stub after it (ragged lines). So each
    paragraph and list item is joined and filled to the width here (an item's continuation
    lines indented under its text), and what has a layout of its own (a fenced or indented code
    block, a table row, a heading) is kept line for line."""
    width = max(width, 20)
    out: list[str] = []
    unit: list[str] = []
    indent = ""
    fenced = False

    def flush() -> None:
        nonlocal unit, indent
        if unit:
            first, *rest = unit
            match = _ITEM.match(first)
            lead = match.group(0) if match else ""
            words = " ".join([first[len(lead):].strip(), *(r.strip() for r in rest)])
            out.extend(textwrap.wrap(words, width, initial_indent=lead,
                                     subsequent_indent=" " * len(lead), break_long_words=False,
                                     break_on_hyphens=False) or [lead.rstrip()])
        unit, indent = [], ""

    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            flush()
            fenced = not fenced
            out.append(line)
        elif fenced:
            out.append(line)
        elif not line.strip():
            flush()
            out.append("")
        elif line.lstrip().startswith("|") or line.startswith("#") or (
                line.startswith(("    ", "\t")) and not unit):
            flush()
            out.append(line)
        elif _ITEM.match(line):
            flush()
            unit = [line]
        else:
            unit.append(line)
    flush()
    return out
