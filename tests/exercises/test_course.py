"""A student's operations on a real workspace: check, attempts, hints, solution, reset."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.errors import LockedError, UnknownExerciseError, WorkspaceError
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.render import TERMINAL, report_view
from routerlab.exercises.learner.workspace import MARKER, Workspace, find_workspace, init_workspace

Solve = Callable[[Workspace, str], Path]


def test_init_writes_one_starter_per_exercise_and_never_overwrites(tmp_path: Path) -> None:
    workspace, written = init_workspace(tmp_path / "ws", "ada")
    catalog = load_catalog()
    assert len(catalog) >= 12
    assert all(workspace.file_for(e).read_text() == e.starter() for e in catalog)
    assert (workspace.root / MARKER).is_file() and workspace.student == "ada"
    mine = workspace.file_for(catalog.get("quant-3"))
    mine.write_text("# my work\n")
    _, again = init_workspace(tmp_path / "ws")
    assert again == [] and mine.read_text() == "# my work\n"


def test_the_workspace_is_found_from_a_subfolder_or_refused_with_advice(
        workspace: Workspace, tmp_path: Path,
) -> None:
    assert find_workspace(start=workspace.exercise_dir).root == workspace.root
    with pytest.raises(WorkspaceError, match="exercises init"):
        find_workspace(start=tmp_path)
    with pytest.raises(WorkspaceError, match="inside the workspace"):
        init_workspace(workspace.exercise_dir / "nested")


def test_starter_fails_solution_passes_and_unchanged_code_is_not_a_new_attempt(
        course: Course, solve: Solve,
) -> None:
    first = course.check("quant-1")  # the starter, untouched: checked, not an attempt
    assert not first.passed and first.untouched and first.attempt == 0
    mine = course.workspace.file_for(course.catalog.get("quant-1"))
    mine.write_text(mine.read_text("utf-8") + "\n# not yet\n", "utf-8")
    assert course.check("quant-1").attempt == 1
    assert course.check("quant-1").attempt == 1, "re-checking the same code is not an attempt"
    solve(course.workspace, "quant-1")
    passed = course.check("quant-1")
    assert passed.passed and passed.first_pass and passed.attempt == 2
    record = course.status("quant-1").record
    assert record.status == "passed" and record.attempts_to_pass == 2


def test_the_solution_is_refused_before_a_pass_and_opened_after(
        course: Course, solve: Solve,
) -> None:
    with pytest.raises(LockedError, match="opens once you pass"):
        course.solution("registry-2")
    solve(course.workspace, "registry-2")
    assert course.check("registry-2").passed
    found = course.solution("registry-2")
    assert "worked solution" in found.text and found.path.read_text() == found.text
    status = course.status("registry-2")
    assert status.record.solution_viewed


def test_hints_come_in_three_levels_and_the_highest_seen_is_recorded(course: Course) -> None:
    levels = [course.hint("registry-1").level for _ in range(4)]
    assert levels == [1, 2, 3, 3]
    assert course.hint("quant-2", level=3).text == load_catalog().get("quant-2").hints[2]
    course.hint("quant-2", level=1)
    record = course.status("quant-2").record
    assert record.hint_level == 3


def test_reset_restores_the_starter_and_keeps_the_history(course: Course, solve: Solve) -> None:
    path = solve(course.workspace, "quant-3")
    assert course.check("quant-3").passed
    course.reset("quant-3")
    assert path.read_text() == load_catalog().get("quant-3").starter()
    status = course.status("quant-3")
    assert status.record.status == "pending" and status.done, "the earlier pass still counts"


def test_next_exercise_follows_the_catalog_order(course: Course, solve: Solve) -> None:
    first, second = list(load_catalog())[:2]
    assert course.next_exercise() == first
    solve(course.workspace, first.id)
    course.check(first.id)
    assert course.next_exercise() == second


def test_a_typo_in_an_id_suggests_the_right_one(course: Course) -> None:
    with pytest.raises(UnknownExerciseError, match="did you mean quant-3"):
        course.check("qaunt-3")


def test_a_deleted_student_file_is_restored_from_the_starter(course: Course) -> None:
    exercise = load_catalog().get("quant-1")
    course.workspace.file_for(exercise).unlink()
    assert not course.check("quant-1").passed
    assert course.workspace.file_for(exercise).read_text() == exercise.starter()


def test_a_failure_message_is_plain_language_with_the_hint_to_read(course: Course) -> None:
    path = course.workspace.file_for(load_catalog().get("registry-1"))
    path.write_text(path.read_text().replace(
        'raise NotImplementedError("get_handle")', "return handles.pop(tensor_id)"))
    report = course.check("registry-1")
    view = report_view(report, load_catalog().get("registry-1"), TERMINAL)
    text = "\n".join(b.text for b in view.blocks)
    assert "expected:" in text and "your code:" in text
    assert "routerlab exercises hint registry-1 --level 2" in text
    assert view.headline.startswith("✗ registry-1")


def test_corrupted_progress_is_reported_once_and_other_progress_survives(
        course: Course, solve: Solve,
) -> None:
    solve(course.workspace, "quant-3")
    course.check("quant-3")
    mine = course.workspace.file_for(course.catalog.get("quant-1"))
    mine.write_text(mine.read_text("utf-8") + "\n# a first try\n", "utf-8")  # an attempt
    course.check("quant-1")
    text = course.workspace.state_path.read_text()
    course.workspace.state_path.write_text(text.replace('"hint_level": 0', '"hint_level": -1', 1))
    fresh = Course(course.workspace)
    statuses = {s.exercise.id: s for s in fresh.statuses()}
    assert len(fresh.problems) == 1 and "quant-1" in fresh.problems[0]
    assert statuses["quant-3"].done and statuses["quant-1"].record.attempts == 0
    assert Course(course.workspace).statuses() and not Course(course.workspace).problems


def test_one_status_is_the_one_statuses_lists(course: Course) -> None:
    course.check("quant-1")
    listed = {s.exercise.id: s for s in course.statuses()}
    for exercise_id in ("quant-1", "registry-2"):
        assert course.status(exercise_id) == listed[exercise_id]
    with pytest.raises(UnknownExerciseError, match="did you mean"):
        course.status("quant-99")
