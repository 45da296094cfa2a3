"""Wide tables never cut a word: at 40, 60 and 80 columns `compare`'s table and every step of the
tour show each word whole (a table turns sideways, or into one record per row, and wraps at
spaces). Issue 29 saw "polic|y", "bit-e|xact" and "impleme|nted" at 60 columns."""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.cli.commands.tour import render_step
from routerlab.core import TableView, format_cell
from routerlab.present.rich import to_rich
from routerlab.teaching.compare import compare_policies
from routerlab.teaching.tour import TOTAL_STEPS, tour

WIDTHS = (40, 60, 80)
BORDER = 4
"""A panel's two borders and their padding: a word this much narrower than the terminal fits."""


def _words(*texts: str) -> set[str]:
    return {word for text in texts for word in text.split()}


def _view_words(view: TableView) -> set[str]:
    return _words(view.title, *view.columns,
                  *(format_cell(cell) for row in view.rows for cell in row))


def _console(width: int) -> Console:
    return Console(width=width, file=io.StringIO(), no_color=True, soft_wrap=False)


def _cut(words: set[str], shown: str, width: int) -> list[str]:
    """The words that fit on one line of the terminal but are not shown whole."""
    return sorted(w for w in words if len(w) <= width - BORDER and w not in shown)


@pytest.mark.parametrize("width", WIDTHS)
def test_compare_shows_every_word_whole(width: int) -> None:
    comparison = compare_policies(np.linspace(-1, 1, 16, dtype=np.float32), "q8f", hops=2)
    console = _console(width)
    console.print(to_rich(comparison.view()))
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert max(map(len, shown.splitlines())) <= width
    assert not _cut(_view_words(comparison.view()), shown, width)
    for word in ("policy", "bit-exact", "(TransferRejected)"):
        assert word in shown


@pytest.mark.parametrize("width", WIDTHS)
def test_every_tour_step_shows_every_word_whole(width: int) -> None:
    steps = list(tour())
    console = _console(width)
    for step in steps:
        render_step(console, step, TOTAL_STEPS, plain=True)
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    code = {line for step in steps for line in step.code.splitlines()}  # whole on purpose:
    # code is never wrapped, so a pasted line runs (tests/cli/test_tour.py)
    assert max(len(line) for line in shown.splitlines() if line not in code) <= width
    words = _words(*(step.text for step in steps))
    for step in steps:
        for view in step.views:
            words |= _view_words(view)
    assert not _cut(words, shown, width)
    assert "implemented" in shown


@pytest.mark.parametrize("width", WIDTHS)
def test_the_compare_command_follows_columns(width: int) -> None:
    """Through the CLI: the console takes its width from COLUMNS, as a terminal sets it."""
    result = CliRunner().invoke(app, ["compare", "--plain", "--hops", "1"],
                                env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    assert max(map(len, result.stdout.splitlines())) <= width
    for word in ("policy", "bit-exact", "requantize", "dequantize"):
        assert word in result.stdout
