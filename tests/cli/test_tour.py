"""`routerlab tour`: the guided story runs end to end without pausing, and its content comes from
the core (`routerlab.teaching.tour`), so a notebook can show the same steps."""

from __future__ import annotations

import io
import re

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.teaching.tour import TOTAL_STEPS, tour


def test_tour_runs_with_no_pause_without_ever_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--no-pause` never waits for Enter: a prompt would fail the run (how long the ten steps
    take depends on the machine's load, so no clock is read)."""
    from rich.console import Console

    def waited(*_: object, **__: object) -> str:
        raise AssertionError("the tour waited for Enter under --no-pause")

    monkeypatch.setattr(Console, "input", waited)
    monkeypatch.setattr("routerlab.cli.commands.tour._on_terminal", lambda: True)
    paused = CliRunner().invoke(app, ["tour", "--plain"])  # on a terminal it waits: caught
    assert isinstance(paused.exception, AssertionError), paused.output
    result = CliRunner().invoke(app, ["tour", "--no-pause", "--plain"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    for text in ("Step 1/10", "legacy: Burn's router entry", "not implemented",
                 "not yet implemented: Local transfer of QFloat(QuantScheme { value: Q2F",
                 "would wait forever for transfer", "reject: refuse on the client",
                 "dequantize: move floats", "requantize: move floats, recalibrate", "1.42222",
                 "native: move the bits", "All five policies side by side", "Registry cpu:0",
                 "Registry cpu:1", "Step 10/10"):
        assert text in out, text


def test_tour_does_not_wait_when_stdin_is_not_a_terminal() -> None:
    result = CliRunner().invoke(app, ["tour", "--plain"], input="")
    assert result.exit_code == 0 and "Step 10/10" in result.stdout


def test_the_story_is_data() -> None:
    steps = list(tour())
    assert [s.number for s in steps] == list(range(1, TOTAL_STEPS + 1))
    outcomes = {s.title.split(":")[0]: s.outcome for s in steps}
    assert outcomes["reject"] == "refused" and outcomes["native"] == "ok"
    legacy = [s for s in steps if s.outcome == "panic"]
    assert [s.source for s in legacy] == ["crates/burn-router/src/ops/qtensor.rs:34-39",
                                          "crates/burn-router/src/interpreter.rs:98"]
    ended = legacy[1].views[0].caption
    assert "session ENDED: panicked" in ended
    requantize = next(s for s in steps if s.title.startswith("requantize"))
    assert [row[4] for row in requantize.views[0].rows] == ["[0.8]", "[1.06667]", "[1.42222]"]
    native = next(s for s in steps if s.title.startswith("native"))
    assert native.views[0].rows[0][-1] is True
    assert native.views[1].rows == []  # q was unique: it left cpu:0
    assert steps[8].views[0].title.startswith("Policies: q2f")
    assert all(s.to_dict()["title"] for s in steps)


def test_on_a_terminal_every_screenful_fits_above_its_prompt(monkeypatch) -> None:
    """A step taller than the screen stops at each screenful with a "more" prompt, so no line of
    a step scrolls away before the reader has pressed Enter (issue 29: step 2 was 49 lines)."""
    from routerlab.cli.commands import tour as command

    monkeypatch.setattr(command, "_on_terminal", lambda: True)
    height = 24
    result = CliRunner().invoke(app, ["tour", "--plain"], input="\n" * 200,
                                env={"COLUMNS": "80", "LINES": str(height)})
    assert result.exit_code == 0, result.output
    screens = re.split(r"-- more: Enter \(Ctrl-C to stop\) --|Enter to continue \(Ctrl-C to "
                       r"stop\)", result.stdout)
    assert len(screens) > TOTAL_STEPS  # paged: more prompts than steps
    assert max(len(screen.strip("\n ").splitlines()) for screen in screens) <= height - 1
    assert "Step 10/10" in screens[-1]


def test_pager_prints_everything_once_in_order() -> None:
    from rich.console import Console

    from routerlab.cli.pager import paged

    console = Console(width=60, height=10, file=io.StringIO(), no_color=True)
    asked: list[int] = []
    pages = paged(console, lambda c: [c.print(f"line {i}") for i in range(25)],
                  lambda: asked.append(1))
    assert pages == 4 and len(asked) == 3  # 8 lines a screen: 10, less the two prompts
    shown = console.file.getvalue().splitlines()
    assert shown == [f"line {i}" for i in range(25)]


def test_where_to_go_next_names_the_command_that_started_it() -> None:
    last = list(tour("./run"))[-1]
    assert "./run transfer" in last.text and "./run simulate quantized-cross-backend" in last.text
    assert "routerlab " not in last.text


@pytest.mark.parametrize("columns", ["40", "60"])
def test_the_tours_code_is_never_wrapped_on_a_narrow_terminal(columns: str) -> None:
    """Each line of code a step ran is printed whole (below its panel), so a pasted line runs."""
    from routerlab.teaching.tour import tour as story

    result = CliRunner().invoke(app, ["tour", "--no-pause", "--plain"],
                                env={"COLUMNS": columns, "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    printed = result.stdout.splitlines()
    for step in story("routerlab"):
        for line in filter(None, step.code.splitlines()):
            assert line in printed, (columns, line)
