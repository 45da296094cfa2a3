"""A term run from docs/exercises.md as written ("A term's gradebook"): the quickstart's class
released with its roster (variants on) and collected, an assignment with a due date and a late
policy, an extension, the grading, an override with a reason, the Canvas and Moodle files
exported from the gradebook without regrading, and one student's history. Then what each of those
files says is checked against the term: ben handed in late (-10% of week-1), ada after the due
date but within her extension (no penalty), ben's override in his grade and his feedback."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.engine.jail import unavailable

ROOT = Path(__file__).resolve().parents[2]
MARK = "tests/exercises/test_gradebook_term.py runs this block as written"


def _block() -> str:
    """The bash block that follows the marker naming this test in docs/exercises.md."""
    text = (ROOT / "docs" / "exercises.md").read_text(encoding="utf-8")
    after = text[text.index(MARK):]
    found = re.search(r"```bash\n(.*?)```", after, re.S)
    assert found is not None
    return found.group(1)


def _rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


@pytest.mark.slow  # grades a class of three in the jail
@pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))
def test_a_term_runs_from_the_docs_as_written(tmp_path: Path) -> None:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200",
           "XDG_DATA_HOME": str(tmp_path / "data"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("ROUTERLAB_RUN_SCRIPT", None)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", _block()], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    term = tmp_path / "term"
    total = load_catalog().total_points

    header, *rows = _rows(term / "grades" / "grades.csv")
    graded = {row[0]: row for row in rows}
    ben_graded = float(graded["ben"][4])
    assert float(graded["ada"][4]) == total, "ada's own variant's answers earn everything"
    # recheck's own outputs show lateness too (issue 38 §2), before any override
    assert header[-3:] == ["late", "late_penalty_points", "points_after_late"]
    assert graded["ben"][-3].startswith("week-1: ") and "late against the due date" in \
        graded["ben"][-3] and "penalty 10%" in graded["ben"][-3]
    assert graded["ada"][-3] == "" and graded["ada"][-2] == "0", "within her extension"
    assert float(graded["ben"][-1]) == round(ben_graded - float(graded["ben"][-2]), 2)
    assert "Handed in late: week-1" in (term / "feedback" / "ben.html").read_text()
    assert "id='late'" not in (term / "feedback" / "ada.html").read_text()
    assert "Late hand-ins" in (term / "report.html").read_text()

    canvas = _rows(term / "grades" / "canvas.csv")
    assert canvas[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert canvas[1][0] == "Points Possible" and float(canvas[1][5]) == total
    by_sis = {row[2]: row[5] for row in canvas[2:]}
    assert float(by_sis["SIS-ada"]) == total, "within her extension: no penalty"
    assert by_sis["SIS-cy"] == "0"

    history = subprocess.run([sys.executable, "-m", "routerlab", "teacher", "history", "ben",
                              "--course", "quickstart", "--json"], cwd=term, env=env,
                             capture_output=True, text=True, timeout=300)
    events = json.loads(history.stdout)
    assert [e["kind"] for e in events] == ["collection", "grading", "override", "grade"]
    override = events[2]
    assert override["reason"] == "the statement was ambiguous" and override["new"] == 5
    week_1 = 10 * 5  # the catalog's first five exercises, all of which ben solved
    lost = round(week_1 * 0.10, 2)
    expected = round(ben_graded - (override["old"] - 5) - lost, 2)
    assert events[-1]["points"] == expected == float(by_sis["SIS-ben"])

    moodle = {row[0]: row for row in _rows(term / "grades" / "moodle.csv")[1:]}
    assert float(moodle["SIS-ben"][4]) == round(100 * expected / total, 2)
    assert "late" in moodle["SIS-ben"][5] and "the statement was ambiguous" in moodle["SIS-ben"][5]
    assert moodle["SIS-ada"][5] == "", "nothing to say: no feedback written"
    assert (term / "report.html").stat().st_size > 0


def test_the_pass_rate_chart_does_not_use_the_colours_of_the_points_chart() -> None:
    """Amber means "partial points" (and green "full", red "none") in the chart below the pass
    rates: the pass-rate bars take none of the three."""
    pytest.importorskip("matplotlib")
    from routerlab.exercises.teacher.analytics import ExerciseStats
    from routerlab.exercises.teacher.class_report import _pass_rates, _points_split
    from routerlab.present.palette import AMBER, BLUE, GREEN, RED

    stats = [ExerciseStats("a-1", "A", "predict", 10, [10, 0, 5], passed=1),
             ExerciseStats("b-1", "B", "predict", 10, [10, 10, 5], passed=2)]
    rates, split = _pass_rates(stats).lower(), _points_split(stats).lower()
    assert AMBER.hex.lower() in split and GREEN.hex.lower() in split
    assert BLUE.hex.lower() in rates
    assert not any(hue.hex.lower() in rates for hue in (AMBER, GREEN, RED))
