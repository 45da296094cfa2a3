"""The progress line of the long commands: a count, an estimate of the time left from the steps
timed so far (not those a resumed run found done), one line per step off a terminal."""

from __future__ import annotations

import pytest

from routerlab.cli import progress
from routerlab.cli.progress import ProgressLine


def test_the_estimate_comes_from_the_steps_this_run_timed(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    clock = iter([100.0, 110.0, 120.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    line = ProgressLine(10, "students", done=4)  # four from the journal: not timed
    line.step("s5")  # 10 s for one step, 5 left
    line.step("s6")  # 10 s each so far, 4 left
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and all(text.startswith("[") for text in lines)
    assert "5/10 students, about 50 s left; last: s5" in lines[0]
    assert "6/10 students, about 40 s left; last: s6" in lines[1]


def test_long_estimates_read_in_minutes_and_hours() -> None:
    assert progress._duration(0.2) == "1 s"
    assert progress._duration(150) == "2 min"
    assert progress._duration(3 * 3600 + 5 * 60) == "3 h 05 min"
