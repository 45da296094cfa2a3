"""`routerlab teacher report GRADES_DIR --html OUT`: a regraded class on one offline page.

Thin: the numbers are `routerlab.exercises.teacher.analytics`, the page
`routerlab.exercises.teacher.class_report`. Registered under `teacher` by `teacher.py`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Annotated

import typer

from ..options import Plain


def register(teacher: typer.Typer) -> None:
    teacher.command()(report)


def report(
    grades_dir: Annotated[Path, typer.Argument(
        metavar="GRADES_DIR", help="The folder `teacher recheck` wrote its CSV and resume file "
                                   "(grades.jsonl) into.")],
    html_out: Annotated[Path, typer.Option("--html", metavar="OUT",
                                           help="The HTML file to write.")],
    plain: Plain = False,
) -> None:
    """Per-exercise pass rates and points, the hardest checks, the commonest wrong predictions
    and the self-reported attempts and hints, as one offline HTML page with figures."""
    from ...core import RouterLabError

    if importlib.util.find_spec("matplotlib") is None:
        raise RouterLabError("the report draws with matplotlib: pip install "
                             "'routerlab[notebooks]'")
    from ...exercises.teacher.class_report import write_report
    from ..render import make_console

    data, path = write_report(grades_dir, html_out)
    hardest = data.hardest(1)
    console = make_console(plain)
    console.print(f"{data.class_size} students, {len(data.exercises)} exercises"
                  + (f"; hardest check: {hardest[0].exercise_id} / {hardest[0].name}"
                     if hardest else ""), highlight=False, markup=False)
    console.print(f"{len(data.students)} regraded, {len(data.errors)} not graded, "
                  f"{len(data.absent)} handed in nothing", highlight=False, markup=False)
    console.print(f"report written to {path}", highlight=False, markup=False)
