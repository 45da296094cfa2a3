"""The teacher names the course; a marker never does (issue 37 §3). A lone student whose marker
names another course is that student's row, never a silent switch to the catalog's variant; a
workspace released with variants while no secret is found is told so; one odd marker no longer
stops the class; every run says whether it graded with variants; course ids are checked as
student ids are."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from routerlab.exercises.authoring.secret import ensure_secret, fingerprint
from routerlab.exercises.errors import GradesError
from routerlab.exercises.learner.workspace import MARKER, STATE_DIR
from routerlab.exercises.teacher.class_variants import class_course, course_id
from routerlab.exercises.teacher.classroom import GradeJob, StudentResult
from routerlab.exercises.teacher.regrade import Outputs, plan_class, regrade

COURSE = "burn-2027"


@pytest.fixture(autouse=True)
def _data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _workspace(folder: Path, student: str, course: str | None, *, variants: bool = False,
               released_with: str = "") -> Path:
    """A class workspace as `exercises init` leaves it: the marker, and the bundle's copy of
    `course.toml` (left out when `course` is None... or when a student deleted it)."""
    folder.mkdir(parents=True)
    lines = [f'student = "{student}"', f'student_id = "{student}"']
    if course is not None:
        lines.append(f"course = {json.dumps(course)}")  # a TOML string, escapes and all
    (folder / MARKER).write_text("\n".join(lines) + "\n")
    if variants or released_with:
        copy = folder / STATE_DIR / "course"
        copy.mkdir(parents=True)
        (copy / "course.toml").write_text(
            f'id = {json.dumps(course)}\nvariants = {"true" if variants else "false"}\n'
            f'secret_fingerprint = "{released_with}"\n')
    return folder


@pytest.mark.parametrize("bad", ["../etc", "/abs", "a/b", "..", "x" * 65, ""])
def test_a_course_id_is_checked_as_a_student_id(bad: str, tmp_path: Path) -> None:
    if bad:
        with pytest.raises(GradesError, match="course id"):
            course_id(bad, None)
    else:  # no --course: the default `teacher release` gives, never a marker's
        assert course_id(bad, None) == "routerlab"


def test_the_course_comes_from_the_teacher_never_the_marker(tmp_path: Path) -> None:
    catalog = tmp_path / "my-course"
    catalog.mkdir()
    assert course_id(None, catalog) == "my-course"  # release's default: the folder's name
    (catalog / "course.toml").write_text(f'id = "{COURSE}"\n')
    assert course_id(None, catalog) == COURSE  # a bundle records its course
    assert course_id("other", catalog) == "other"


def test_a_lone_student_whose_marker_names_another_course_is_not_graded_as_the_catalog(
        tmp_path: Path) -> None:
    secret = ensure_secret(COURSE, True, tmp_path / "out")
    # the attack: a marker naming a course without variants, course.toml removed
    alone = _workspace(tmp_path / "sub" / "eve", "eve", "self-study-course")
    course = class_course([alone], COURSE, None)
    assert course.variants and course.secret is not None
    assert course.secret.key == secret.key
    assert "belongs to the course 'self-study-course', this class is 'burn-2027'" in \
        course.problem(alone)
    assert course.summary().startswith("graded with variants")


def test_a_workspace_released_with_variants_without_a_secret_is_that_students_row(
        tmp_path: Path) -> None:
    ada = _workspace(tmp_path / "ada", "ada", COURSE, variants=True, released_with="ab" * 12)
    ben = _workspace(tmp_path / "ben", "ben", COURSE)
    course = class_course([ada, ben], COURSE, None)  # no secret on this machine
    assert not course.variants
    assert "released with variants, but no secret of the course 'burn-2027'" in \
        course.problem(ada)
    assert course.problem(ben) == ""
    assert course.summary().startswith("graded without variants")


def test_one_odd_marker_no_longer_blocks_the_class(tmp_path: Path) -> None:
    secret = ensure_secret(COURSE, True, tmp_path / "out")
    mine = fingerprint(secret.key)
    honest = [_workspace(tmp_path / "sub" / s, s, COURSE, variants=True, released_with=mine)
              for s in ("ada", "ben")]
    odd = _workspace(tmp_path / "sub" / "odd", "odd", "\x1b[2Jelsewhere", variants=True,
                     released_with="cd" * 12)
    course = class_course([*honest, odd], None, None, tmp_path / "data" / COURSE)
    assert course.id == COURSE  # the --catalog folder's name, as release gives it
    assert [course.problem(f) for f in honest] == ["", ""]
    assert "\\x1b[2Jelsewhere" in course.problem(odd)  # printable: no escape reaches a screen


def test_a_secret_that_is_none_of_the_classs_is_still_refused(tmp_path: Path) -> None:
    ensure_secret(COURSE, True, tmp_path / "out")
    folders = [_workspace(tmp_path / s, s, COURSE, variants=True, released_with="ef" * 12)
               for s in ("ada", "ben")]
    with pytest.raises(GradesError, match="is not the secret the course"):
        class_course(folders, COURSE, None)


class _Stub:
    """An executor that grades nobody for real: each job comes back an empty result, so the
    test sees which students `regrade` sent to be graded."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def run(self, jobs: Sequence[GradeJob]) -> Iterator[StudentResult]:
        for job in jobs:
            self.sent.append(job.student_id)
            yield StudentResult(job.student_id, job.submission)


def test_the_odd_student_gets_a_row_saying_why_and_the_rest_are_graded(tmp_path: Path) -> None:
    ensure_secret(COURSE, True, tmp_path / "out")
    subs = tmp_path / "sub"
    for student in ("ada", "ben"):
        _workspace(subs / student, student, COURSE)
    _workspace(subs / "eve", "eve", "another")
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nada,Ada,a@x\nben,Ben,b@x\neve,Eve,e@x\n")
    plan = plan_class([subs], roster)
    course = class_course([p.folder for p in plan.rows if p.folder], COURSE, None)
    stub = _Stub()
    summary = regrade(plan, Outputs.beside(tmp_path / "g.csv", None), stub,
                      variants=lambda sid: {}, course=course)
    assert stub.sent == ["ada", "ben"]
    status = {row.student.id: row.status for row in summary.rows}
    assert status["ada"] == status["ben"] == "ok"
    assert status["eve"].startswith("not graded: the workspace belongs to the course 'another'")
