"""Authoring into a course folder: `teacher seal` checks in a temporary copy and then writes the
teacher's folder in one rename, never the installed package; `exercises upgrade` says which
passes a changed exercise takes away, and why, and keeps the student's file."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from routerlab.exercises.answers import seal, unseal
from routerlab.exercises.authoring import sealing
from routerlab.exercises.authoring.lint import lint_folder
from routerlab.exercises.authoring.sealing import model_key, open_solution, seal_into
from routerlab.exercises.catalog import Exercise, catalog_root, load_catalog
from routerlab.exercises.errors import CatalogError
from routerlab.exercises.learner.course import Course, invalidated_passes
from routerlab.exercises.learner.workspace import Workspace, upgrade_workspace

Reference = Callable[[Exercise], str]
INSTALLED = Path(str(catalog_root()))


def _installed_seals() -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in INSTALLED.glob("*/sealed.json")}


def test_seal_starts_a_course_folder_and_never_writes_the_installed_catalog(
        tmp_path: Path, reference: Reference) -> None:
    before = _installed_seals()
    solution = tmp_path / "quant3.py"
    solution.write_text(reference(load_catalog().get("quant-3")))
    with pytest.raises(CatalogError, match="installed RouterLab"):
        seal_into(INSTALLED, "quant-3", solution)
    course = tmp_path / "my-course"
    target = seal_into(course, "quant-3", solution)
    assert target == course / "quant-3" / "sealed.json" and (course / "index.toml").is_file()
    exercise = load_catalog(str(course.resolve())).get("quant-3")
    assert open_solution(exercise) == solution.read_text()
    assert _installed_seals() == before


def test_a_solution_that_fails_leaves_the_course_folder_as_it_was(
        tmp_path: Path, reference: Reference, monkeypatch: pytest.MonkeyPatch) -> None:
    course = tmp_path / "course"
    shutil.copytree(INSTALLED, course)
    sealed = course / "quant-3" / "sealed.json"
    before = sealed.read_bytes()
    seen: list[bytes] = []
    prove = sealing._prove

    def watching(exercise: Exercise, solution_file: Path) -> None:
        seen.append(sealed.read_bytes())  # what a concurrent check sees while the proof runs
        prove(exercise, solution_file)

    monkeypatch.setattr(sealing, "_prove", watching)
    wrong = tmp_path / "wrong.py"
    wrong.write_text(reference(load_catalog().get("quant-3")).replace("<<", ">>"))
    with pytest.raises(CatalogError, match="does not pass"):
        seal_into(course, "quant-3", wrong)
    assert sealed.read_bytes() == before and seen == [before]
    right = tmp_path / "right.py"
    right.write_text(reference(load_catalog().get("quant-3")) + "\n# sealed again\n")
    seal_into(course, "quant-3", right)
    assert seen == [before, before], "the course folder changed only after the proof"
    assert sealed.read_bytes() != before
    assert [r.ok for r in lint_folder(course, ["quant-3"])] == [True]


def test_upgrade_lists_each_pass_a_changed_exercise_takes_away_and_keeps_the_file(
        workspace: Workspace, tmp_path: Path, reference: Reference) -> None:
    course = Course(workspace)
    exercise = load_catalog().get("quant-3")
    mine = workspace.file_for(exercise)
    mine.write_text(reference(exercise) + "\n# my own comment\n")
    assert course.check("quant-3").passed
    changed = tmp_path / "changed"
    shutil.copytree(INSTALLED, changed)
    data = json.loads((changed / "quant-3" / "sealed.json").read_text())
    name = next(iter(data["digests"]))
    data["digests"][name] = "0" * 64  # the check's results changed...
    text = unseal(data["solution"], model_key(exercise))
    data["solution"] = seal(text, "another key")  # ...so a pass's key no longer opens it
    (changed / "quant-3" / "sealed.json").write_text(json.dumps(data))
    (changed / "quant-3" / "starter.py").write_text(
        (changed / "quant-3" / "starter.py").read_text() + "\n# TODO: a new part\n")
    catalog = load_catalog(str(changed.resolve()))
    done = upgrade_workspace(workspace, catalog)
    assert list(done.changed) == ["quant-3"]
    assert any(name in reason for reason in done.changed["quant-3"])
    assert "its starter changed" in done.changed["quant-3"]
    assert mine.read_text().endswith("# my own comment\n"), "the student's file is kept"
    assert done.beside == [(mine, mine.with_name("quant_3.new.py"))]
    lost = invalidated_passes(Course(workspace, catalog), done)
    assert [item.exercise_id for item in lost] == ["quant-3"]
    assert name in lost[0].reason
    status = Course(workspace, catalog).status("quant-3")
    assert not status.done and status.record.passed_ever, "the history is kept"
    assert status.label.startswith("changed since your pass")


def test_kept_wrong_submissions_that_no_longer_open_are_one_line_and_nothing_is_sealed(
        tmp_path: Path) -> None:
    """Checks changed since the last seal: the wrong submissions kept from it are under a key
    the model no longer gives. Sealing without --wrong says so in one line and writes nothing."""
    course = tmp_path / "course"
    shutil.copytree(Path(str(catalog_root())), course)
    sealed = course / "registry-3" / "sealed.json"
    document = json.loads(sealed.read_text())
    document["wrong"] = seal("[]", "a key the model does not give")
    sealed.write_text(json.dumps(document, indent=2) + "\n")
    before = sealed.read_bytes()
    solution = tmp_path / "solution.py"
    solution.write_text(open_solution(load_catalog().get("registry-3")))
    with pytest.raises(CatalogError, match="no longer open .* --wrong FILE"):
        seal_into(course, "registry-3", solution)
    assert sealed.read_bytes() == before
