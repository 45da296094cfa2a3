"""The teacher's side of issue 11: recheck, upgrade across catalog changes, lint that notices an
emptied hidden check, the list a student reads, fair grading."""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.exercises.authoring.lint import lint_exercise
from routerlab.exercises.catalog import Catalog, Tolerance, load_catalog
from routerlab.exercises.checks import suite_for
from routerlab.exercises.checks.base import Check
from routerlab.exercises.engine import judge
from routerlab.exercises.engine.jail import unavailable
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.render import list_lines
from routerlab.exercises.learner.workspace import Workspace, upgrade_workspace
from routerlab.exercises.teacher.gradebook import neutral as safe_cell

Solve = Callable[[Workspace, str], Path]


def test_recheck_writes_grades_and_digests_and_ignores_the_progress_file(
        tmp_path: Path, workspace: Workspace, solve: Solve) -> None:
    solved = solve(workspace, "quant-3")
    workspace.state_path.write_text("{not json")
    isolation = [] if unavailable() is None else ["--no-isolation"]
    done = CliRunner().invoke(app, ["teacher", "recheck", str(workspace.root), "--out",
                                    str(tmp_path / "grades.csv"), *isolation])
    assert done.exit_code == 0, done.output
    rows = list(csv.DictReader(line for line in (tmp_path / "grades.csv").open()
                               if not line.startswith('"WARNING')))
    assert rows[0]["id"] == "ws" and rows[0]["quant-3"] == "10" and rows[0]["points"] == "10"
    digest = hashlib.sha256(solved.read_bytes()).hexdigest()
    assert f"{digest}  ws/exercises/quant_3.py" in (tmp_path / "grades.sha256").read_text()


def test_csv_cells_that_a_spreadsheet_would_run_are_escaped() -> None:
    assert [safe_cell(v) for v in ("=HYPERLINK()", "+1", "-2", "@x", "ada", 3)] == \
        ["'=HYPERLINK()", "'+1", "'-2", "'@x", "ada", 3]


def test_a_solved_workspace_keeps_its_passes_after_an_insert_and_upgrade(
        workspace: Workspace, solve: Solve) -> None:
    course = Course(workspace)
    for exercise_id in ("registry-1", "quant-3"):
        solve(workspace, exercise_id)
        assert course.check(exercise_id).passed
    # a workspace of an older RouterLab: files numbered by position
    for exercise in load_catalog():
        path = workspace.exercise_dir / exercise.file_name
        path.rename(workspace.exercise_dir / exercise.legacy_file_name)
    assert Course(workspace).check("quant-3").passed, "an old workspace keeps working"
    # a new exercise inserted first shifts every position; the files are keyed by id
    catalog = load_catalog()
    new = replace(catalog.get("quant-1"), id="intro-1", number=1)
    shifted = Catalog([new] + [replace(e, number=e.number + 1) for e in catalog])
    done = upgrade_workspace(workspace)
    assert len(done.renamed) == len(catalog)
    statuses = {s.exercise.id: s.done for s in Course(workspace, shifted).statuses()}
    assert statuses["registry-1"] and statuses["quant-3"] and not statuses["intro-1"]
    assert Course(workspace).check("registry-1").passed


def test_lint_fails_when_a_hidden_check_is_emptied(tmp_path: Path) -> None:
    exercise = load_catalog().get("registry-1")
    suite = suite_for(exercise)
    original = list(suite.checks)
    index = next(i for i, c in enumerate(suite.checks) if c.name.startswith("200 seeded"))
    emptied = suite.checks[index]
    suite.checks[index] = Check(emptied.name, True, emptied.hint, lambda sub: [])
    judge.expected.cache_clear()
    try:
        problems = lint_exercise(exercise, tmp_path).problems
    finally:
        suite.checks[:] = original
        judge.expected.cache_clear()
    assert any("200 seeded" in p and "sealed" in p for p in problems), problems


def test_list_keeps_words_whole_at_80_and_every_column_at_60(workspace: Workspace) -> None:
    statuses = Course(workspace).statuses()
    wide = list_lines(statuses, 80)
    assert max(map(len, wide)) <= 80
    text = " ".join(wide)
    for s in statuses:
        for word in s.exercise.title.split():
            assert word in text.split(), f"{word!r} was split at 80 columns"
    narrow = list_lines(statuses, 60)
    assert max(map(len, narrow)) <= 60
    assert narrow[0].split() == ["#", "id", "title", "kind", "points", "status", "tries", "hints"]


def test_list_json_is_a_list_of_records(workspace: Workspace, solve: Solve) -> None:
    solve(workspace, "quant-3")
    Course(workspace).check("quant-3")
    result = CliRunner().invoke(app, ["exercises", "list", "--json", "--dir", str(workspace.root)])
    records = json.loads(result.output)
    assert all(set(r) == {"id", "title", "kind", "points", "max_points", "status", "path"}
               for r in records)
    quant3 = next(r for r in records if r["id"] == "quant-3")
    assert (quant3["points"], quant3["max_points"], quant3["status"]) == (10, 10, "passed")
    assert Path(quant3["path"]).name == "quant_3.py"


def test_the_workspace_is_found_from_where_run_was_typed(
        workspace: Workspace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ROUTERLAB_CALLER_CWD", str(workspace.exercise_dir))
    result = CliRunner().invoke(app, ["exercises", "list", "--json"])
    assert result.exit_code == 0, result.output


def test_numbers_are_judged_with_the_stated_tolerance_and_near_misses_are_told() -> None:
    tolerance = Tolerance(rel=1e-3, abs=1e-3)
    assert judge.same([0.039062], [0.0390625], tolerance)
    assert not judge.same([0.042], [0.0390625], tolerance)
    assert judge.same([0.042], [0.0390625], tolerance.widened(judge.NEAR))
    assert not judge.same(True, 1, tolerance) and not judge.same([1], ["1"], tolerance)


def test_choice_answers_ignore_case_and_surrounding_space(tmp_path: Path) -> None:
    from routerlab.exercises.checks.fix import _policy

    assert _policy("  Native ") == "native"


def test_hand_edited_results_are_rejected_naming_file_and_field(tmp_path: Path) -> None:
    from routerlab.exercises.errors import GradesError
    from routerlab.exercises.teacher.exports import merge_exports

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    entry = {"id": "quant-3", "passed": True, "points": 50, "points_possible": 10,
             "attempts": 1, "attempts_to_pass": 1, "hint_level": 0, "solution_viewed": False}
    (inbox / "eve.json").write_text(json.dumps({"format": "routerlab-exercise-results",
                                                "student": "eve", "exercises": [entry]}))
    with pytest.raises(GradesError, match=r"eve\.json: rejected: exercises\[0\] \(quant-3\)"
                                          r"\.points"):
        merge_exports(inbox, load_catalog())
