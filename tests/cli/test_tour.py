"""`routerlab tour`: the guided story runs end to end without pausing, and its content comes from
the core (`routerlab.teaching.tour`), so a notebook can show the same steps."""

from __future__ import annotations

import time

from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.teaching.tour import TOTAL_STEPS, tour


def test_tour_runs_with_no_pause_in_a_few_seconds() -> None:
    start = time.perf_counter()
    result = CliRunner().invoke(app, ["tour", "--no-pause", "--plain"])
    assert result.exit_code == 0, result.output
    assert time.perf_counter() - start < 5
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
