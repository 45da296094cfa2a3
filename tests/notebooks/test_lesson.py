"""`lesson()`: a notebook's checkpoints are catalog exercises graded in the enclosing workspace,
and nothing shows the model's answer before the checkpoint is passed or given up."""

from __future__ import annotations

from pathlib import Path

import pytest

from routerlab.exercises.authoring.bundle import release
from routerlab.exercises.authoring.sealing import literal_assignments, open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.errors import WorkspaceError
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.workspace import init_workspace
from routerlab.notebook import Callout, lesson


@pytest.fixture
def inside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace with a notebooks/ folder, the kernel's current folder inside it."""
    root = tmp_path / "ws"
    init_workspace(root, "ada")
    (root / "notebooks").mkdir()
    monkeypatch.chdir(root / "notebooks")
    return root


def _answers(exercise_id: str) -> dict:
    return literal_assignments(open_solution(load_catalog().get(exercise_id)))


def test_a_notebook_inside_a_workspace_grades_there(inside: Path) -> None:
    lab = lesson("01-handles")
    assert lab.workspace.root == inside.resolve() and not lab.temporary
    assert lab.check("registry-2", **_answers("registry-2")).passed
    assert next(s for s in Course(lab.workspace).statuses()
                if s.exercise.id == "registry-2").done, "the terminal sees the same pass"


def test_an_unanswered_prediction_checks_nothing(inside: Path) -> None:
    lab = lesson()
    names = _answers("registry-2")
    shown = lab.check("registry-2", **{**names, next(iter(names)): ...})
    assert isinstance(shown, Callout) and "not answered yet" in shown.heading
    record = next(s for s in Course(lab.workspace).statuses()
                  if s.exercise.id == "registry-2").record
    assert record.attempts == 0


def test_reveal_calls_nothing_until_passed_or_given_up(inside: Path) -> None:
    lab = lesson()
    calls: list[int] = []

    def show() -> str:
        calls.append(1)
        return "the answer"

    locked = lab.reveal("registry-2", show)
    assert isinstance(locked, Callout) and "registry-2" in locked.heading and calls == []
    wrong = {name: [] for name in _answers("registry-2")}
    assert not lab.check("registry-2", **wrong).passed
    assert isinstance(lab.reveal("registry-2", show), Callout) and calls == []
    asked = lab.give_up("registry-2")  # asks first, as the terminal's give-up does
    assert isinstance(asked, Callout) and 'yes=True' in asked.body, asked
    assert isinstance(lab.reveal("registry-2", show), Callout) and calls == [], "nothing given up"
    assert "the model's answers" in lab.give_up("registry-2", yes=True).text
    assert lab.reveal("registry-2", show) == "the answer" and calls == [1]
    assert "the model's answers" in lab.give_up("registry-2").text, "given up: no second ask"
    assert "quant-1" in repr(lab.reveal("quant-1", show)), "another checkpoint stays locked"


def test_outside_a_workspace_the_kernel_gets_one_temporary_workspace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    first, second = lesson(), lesson()
    assert first.temporary and first.workspace.root == second.workspace.root
    assert "temporary" in first._repr_html_() and str(first.workspace.root) in repr(first)
    assert not str(first.workspace.root).startswith(str(tmp_path))


def test_a_broken_workspace_is_reported_not_replaced(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ws"
    init_workspace(root, "ada")
    (root / "routerlab-exercises.toml").write_text("student = [unclosed")
    monkeypatch.chdir(root)
    with pytest.raises(WorkspaceError, match="fix it or delete it"):
        lesson()


def test_progress_lists_the_notebooks_checkpoints(inside: Path) -> None:
    ids = {e.id for e in load_catalog() if e.notebook == "01-handles"}
    shown = lesson("01-handles").progress()
    assert shown.total == len(ids)
    assert lesson().progress().total == len(load_catalog())


def test_a_starter_function_is_not_answered_yet_and_counts_no_attempt(inside: Path) -> None:
    def get_handle(handles, tensor_id, status):
        """Take the handle."""
        ...

    def status_for(count):
        raise NotImplementedError

    lab = lesson()
    for starter, exercise_id in ((get_handle, "registry-1"), (status_for, "registry-3")):
        shown = lab.check(exercise_id, starter)
        assert isinstance(shown, Callout) and "not answered yet" in shown.heading
        assert starter.__name__ in shown.body
    records = {s.exercise.id: s.record for s in Course(lab.workspace).statuses()}
    assert records["registry-1"].attempts == records["registry-3"].attempts == 0

    def get_handle(handles, tensor_id, status):  # noqa: F811 - the learner's next try
        return handles[tensor_id]

    report = lab.check("registry-1", get_handle)
    assert not isinstance(report, Callout) and not report.passed, "a written body is checked"


def test_in_a_class_a_passing_checkpoint_says_its_answer_opens_after_grading(
        tmp_path: Path) -> None:
    """A class workspace's pass is of the visible checks; the reveal must not ask the student
    to answer what they just answered (it stays shut until the teacher's solutions arrive)."""
    bundle = tmp_path / "course"
    release(load_catalog(), bundle, "burn-2027", "Burn")
    root = init_workspace(tmp_path / "ws", "Ada", bundle, "s1")[0].root
    lab = lesson(dir=root)
    calls: list[int] = []
    before = lab.reveal("flow-1", lambda: calls.append(1))
    assert isinstance(before, Callout) and "after grading" in before.heading
    assert "passes" not in before.body
    assert lab.check("flow-1", **_answers("flow-1")).passed
    after = lab.reveal("flow-1", lambda: calls.append(1))
    assert isinstance(after, Callout) and "answer flow-1 first" not in after.heading
    assert "passes its visible checks" in after.body and calls == []
