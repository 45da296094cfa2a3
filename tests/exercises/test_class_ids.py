"""Every id fits, every name is printable, every file is that student's own (issue 37 §4):
feedback file names bounded and injective, a feedback that cannot be written is that student's
row note, the folder named by an id is graded for it, NFC and "did you mean", one LMS id per LMS
row, escape sequences shown escaped, marker ids held to the roster's rule, and `grades.sha256`
in GNU's escaped form. The grading itself is a stand-in: these are the plan's and the files'."""

from __future__ import annotations

import json
import shutil
import subprocess
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from routerlab.exercises.errors import GradesError
from routerlab.exercises.learner.workspace import MARKER
from routerlab.exercises.teacher.classroom import GradeJob, StudentResult
from routerlab.exercises.teacher.feedback import file_stem
from routerlab.exercises.teacher.gradebook import digest_line
from routerlab.exercises.teacher.regrade import Outputs, plan_class, regrade


class _Stub:
    """Grades nobody for real: each job comes back an empty result."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def run(self, jobs: Sequence[GradeJob]) -> Iterator[StudentResult]:
        for job in jobs:
            self.sent.append((job.student_id, Path(job.submission).name))
            yield StudentResult(job.student_id, job.submission)


def _marked(folder: Path, student_id: str) -> Path:
    folder.mkdir(parents=True)
    (folder / MARKER).write_text(f"student = \"x\"\nstudent_id = {json.dumps(student_id)}\n"
                                 'course = "c"\n')
    return folder


def test_feedback_file_names_are_bounded_and_injective() -> None:
    assert file_stem("ada") == "ada"
    assert file_stem("kim_1") != file_stem("kim+1")
    assert file_stem("kim+1").startswith("kim_1~")
    long = "x" * 300
    assert len(file_stem(long) + ".html") < 100 and file_stem(long) != file_stem(long + "y")
    assert not file_stem(".hidden").startswith(".") and "/" not in file_stem("../../etc")
    assert file_stem("\x1b[2J") == file_stem("\x1b[2J") != file_stem("\x1b[3J")


def test_a_feedback_that_cannot_be_written_is_that_students_row(tmp_path: Path) -> None:
    subs = tmp_path / "sub"
    for sid in ("ada", "ben", "cy"):
        (subs / sid).mkdir(parents=True)
        (subs / sid / "registry-1.py").write_text("")  # a hand-in: an all-empty class is refused
    feedback = tmp_path / "feedback"
    (feedback / "ben.html").mkdir(parents=True)  # ben's page cannot be written
    summary = regrade(plan_class([subs / s for s in ("ada", "ben", "cy")], None),
                      Outputs.beside(tmp_path / "g.csv", feedback), _Stub())
    status = {row.student.id: row.status for row in summary.rows}
    assert status["ada"] == status["cy"] == "ok"
    assert status["ben"].startswith("ok; feedback not written: ")
    assert (feedback / "cy.html").is_file(), "the class went on after ben"


def test_the_folder_named_by_an_id_is_graded_for_it(tmp_path: Path) -> None:
    subs = tmp_path / "sub"
    _marked(subs / "aaa-mallory", "zed")  # sorts first, claims zed's id
    _marked(subs / "zed", "zed")
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nzed,Zed,z@x\n")
    stub = _Stub()
    summary = regrade(plan_class([subs], roster), Outputs.beside(tmp_path / "g.csv", None), stub)
    assert ("zed", "zed") in stub.sent and ("aaa-mallory", "aaa-mallory") in stub.sent
    rows = {row.student.id: row for row in summary.rows}
    assert rows["zed"].result is not None and rows["zed"].result.submission.endswith("/zed")
    assert "claims the id zed of another folder" in rows["aaa-mallory"].status


def test_nfd_folders_match_and_a_case_difference_says_did_you_mean(tmp_path: Path) -> None:
    subs = tmp_path / "sub"
    (subs / unicodedata.normalize("NFD", "josé")).mkdir(parents=True)
    (subs / "Ada").mkdir()
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\njosé,José,j@x\nada,Ada,a@x\n", encoding="utf-8")
    plan = plan_class([subs], roster)
    graded = {p.student.id: p.folder for p in plan.rows}
    assert graded["josé"] is not None and graded["ada"] is None
    assert any("did you mean 'ada'" in line for line in plan.problems)


def test_an_lms_file_never_holds_one_lms_id_twice(tmp_path: Path) -> None:
    folders = [_marked(tmp_path / "ada", "ada"), _marked(tmp_path / "mallory", "ada")]
    plan = plan_class(folders, None)
    with pytest.raises(GradesError, match=r"one LMS id on several rows \('ada': rows ada\.ada, "
                                          r"ada\.mallory\)"):
        regrade(plan, Outputs.beside(tmp_path / "g.csv", None), _Stub(), fmt="canvas")
    assert not (tmp_path / "g.csv").exists(), "refused before anything is written"
    regrade(plan, Outputs.beside(tmp_path / "g.csv", None), _Stub())  # plain: two rows, flagged


def test_escape_sequences_reach_no_terminal_and_a_bad_marker_id_is_not_an_id(
        tmp_path: Path) -> None:
    screen = tmp_path / "ok\x1b[2J"
    screen.mkdir()
    slashed = _marked(tmp_path / "eve", "../ada\x1b[2J")
    summary = regrade(plan_class([screen, slashed], None),
                      Outputs.beside(tmp_path / "g.csv", None), _Stub())
    ids = {row.student.id for row in summary.rows}
    assert ids == {"ok\\x1b[2J", "eve"}
    assert "\x1b" not in (tmp_path / "g.csv").read_text()
    eve = next(row for row in summary.rows if row.student.id == "eve")
    assert "the marker's id is not an id" in eve.status


def test_grades_sha256_names_a_newline_in_gnus_escaped_form(tmp_path: Path) -> None:
    name = "honest\nfake  line"
    (tmp_path / name).write_bytes(b"x")
    line = digest_line("2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881", name)
    assert "\n" not in line and line.startswith("\\")
    if shutil.which("sha256sum") is None:
        pytest.skip("no sha256sum here to check the line with")
    (tmp_path / "sums").write_text(line + "\n")
    done = subprocess.run(["sha256sum", "-c", "sums"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_students_row_shows_their_paths_relative_to_their_folder(tmp_path: Path) -> None:
    from routerlab.exercises.catalog import catalog_root
    from routerlab.exercises.teacher.classroom import GradeOptions, grade_student

    course = tmp_path / "course"
    course.mkdir()
    shutil.copytree(Path(str(catalog_root())) / "registry-2", course / "registry-2")
    (course / "index.toml").write_text('order = ["registry-2"]\n')
    eve = tmp_path / "sub" / "eve"
    eve.mkdir(parents=True)
    (eve / MARKER).write_text("student = [broken\n")
    result = grade_student(eve, course, GradeOptions(isolation=False))
    assert "./routerlab-exercises.toml: not valid TOML" in result.error
    assert str(tmp_path) not in result.error
