"""Grading a class, the parts that need no jail: predict answers read as data, results parsed
with their depth capped first, the roster, the LMS layouts, neutralised cells, the digest file,
the resume journal and the feedback files (issue 20 §2-§5)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from pathlib import Path

import pytest

from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.checks import suite_for
from routerlab.exercises.engine.bounded import Malformed, bounded_json
from routerlab.exercises.engine.literals import literal_answers, literal_reply
from routerlab.exercises.engine.runner import judge_reply
from routerlab.exercises.errors import GradesError
from routerlab.exercises.teacher.classroom import (
    CheckResult,
    ExerciseResult,
    GradeJob,
    GradeOptions,
    StudentResult,
    grade_class,
)
from routerlab.exercises.teacher.feedback import feedback_html, feedback_json, write_feedback
from routerlab.exercises.teacher.gradebook import (
    CANVAS_COLUMNS,
    MOODLE_COLUMNS,
    UNISOLATED_NOTE,
    ResumeFile,
    Row,
    csv_text,
    neutral,
    write_digest,
)
from routerlab.exercises.teacher.roster import Student, match, read_roster

# --- predict answers are data ------------------------------------------------------------------


def test_predict_answers_are_read_from_literals_and_never_run(tmp_path: Path) -> None:
    witness = tmp_path / "ran"
    source = (f"import os\nos.system('touch {witness}')\n"
              f"SERVERS = __import__('os').system('touch {witness}')\n"
              "SESSIONS = 2 ** 3 - 1\nNEIGHBOURS = ('cpu:1',)\n")
    answers = literal_answers(source, ["SERVERS", "SESSIONS", "NEIGHBOURS", "ABSENT"])
    assert "not_data" in answers["SERVERS"] and "Call" in answers["SERVERS"]["not_data"]
    assert answers["SESSIONS"] == 7 and answers["NEIGHBOURS"] == ["cpu:1"]
    assert answers["ABSENT"] == {"missing": True}
    assert not witness.exists()


def test_a_predict_file_that_calls_a_function_scores_nothing_for_that_answer(
        tmp_path: Path) -> None:
    exercise = load_catalog().get("flow-1")
    path = tmp_path / "flow_1.py"
    path.write_text("SERVERS = suite.oracle()['SERVERS']\nSESSIONS = ...\nNEIGHBOURS = []\n")
    report = judge_reply(exercise, literal_reply(path, suite_for(exercise)), 5)
    assert not report.passed and not any(o.ok for o in report.outcomes[1:])


def test_a_file_too_deep_for_the_parser_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    exercise = load_catalog().get("flow-1")
    path = tmp_path / "flow_1.py"
    path.write_text("SERVERS = " + "[" * 100_000 + "]" * 100_000 + "\n")
    report = judge_reply(exercise, literal_reply(path, suite_for(exercise)), 5)
    assert not report.passed and report.problem is not None
    assert "cannot be read as data" in report.problem.message


def test_result_lines_are_measured_before_they_are_parsed() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(Malformed, match="deeper"):
        bounded_json(deep)
    with pytest.raises(Malformed, match="more than"):
        bounded_json('"' + "x" * 100 + '"', max_bytes=50)
    assert bounded_json('{"a": "[[[[[[", "b": [1, [2]]}') == {"a": "[[[[[[", "b": [1, [2]]}


def test_a_100k_deep_result_line_is_that_students_problem() -> None:
    exercise = load_catalog().get("quant-3")
    reply = {"result": '{"ready": true}\n' + "[" * 100_000 + "]" * 100_000 + "\n",
             "returncode": 0}
    report = judge_reply(exercise, reply, 5)
    assert not report.passed and "not a result" in report.problem.message


# --- roster ------------------------------------------------------------------------------------

ROSTER = "id,name,email,section\ns1,Ada Lovelace,ada@example.org,A\ns2,Bob,bob@example.org,B\n" \
         "s3,Cy,cy@example.org,A\n"


def test_the_roster_matches_on_ids_and_flags_unknown_missing_and_duplicates(
        tmp_path: Path) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    submitted = tmp_path / "submitted"
    for name in ("s1", "s3", "zz-unknown"):
        (submitted / name).mkdir(parents=True)
    workspace = submitted / "renamed-by-student"
    workspace.mkdir()
    (workspace / "routerlab-exercises.toml").write_text('student = "Bob"\nstudent_id = "s2"\n')
    claimer = submitted / "t-claims-s3"  # a second folder claiming s3: flagged, s3's graded
    claimer.mkdir()
    (claimer / "routerlab-exercises.toml").write_text('student = "T"\nstudent_id = "s3"\n')
    matched = match(read_roster(roster), submitted)
    assert {sid: p.name for sid, p in matched.folders.items()} == {
        "s1": "s1", "s2": "renamed-by-student", "s3": "s3"}
    assert [p.name for p in matched.unknown] == ["zz-unknown"]
    assert matched.duplicates == ["s3"] and matched.missing == []
    (submitted / "s1").rename(submitted / "elsewhere")
    again = match(read_roster(roster), submitted)
    assert again.missing == ["s1"]
    assert any("s1: on the roster, but no submission" == p for p in again.problems())


@pytest.mark.parametrize("text, words", [
    ("name,email\nAda,a@x\n", "id missing"),
    ("id,name,email\n,Ada,a@x\n", "line 2: no id"),
    ("id,name,email\n../up,Ada,a@x\n", "not an id"),
    ("id,name,email\nada,Ada,a@x\nada,Ada again,b@x\n", "line 3: the id 'ada' is listed twice"),
])
def test_a_bad_roster_is_refused_naming_the_line(tmp_path: Path, text: str, words: str) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text(text)
    with pytest.raises(GradesError, match=words):
        read_roster(roster)


# --- the gradebook -----------------------------------------------------------------------------

def _result(sid: str, points: float, error: str = "") -> StudentResult:
    exercise = ExerciseResult("quant-1", "Compute a quantization scale", "implement", points, 10,
                              points == 10, "passed" if points == 10 else "failed",
                              checks=[CheckResult("visible one", False, "failed", "differs",
                                                  "0.0141", "0.5", 2),
                                      CheckResult("hidden one", True, "failed", "a hidden "
                                                  "case differs", None, "0.7", 2)],
                              hint_level=2, sha256="ab" * 32, file="exercises/quant_1.py")
    return StudentResult(sid, f"/subs/{sid}", [exercise], error=error, catalog_version="v1")


def test_plain_csv_starts_with_the_roster_id_and_says_when_isolation_was_off() -> None:
    rows = [Row(Student("s1", "=HYPERLINK(\"x\")", "a@x", "A"), _result("s1", 10), "ok")]
    text = csv_text(rows, ["quant-1"], 10, "plain", isolated=True)
    table = list(csv.reader(io.StringIO(text)))
    assert table[0][:2] == ["id", "name"] and table[1][0] == "s1"
    assert table[1][1].startswith("'=") and table[1][4] == "10"
    unjailed = list(csv.reader(io.StringIO(csv_text(rows, ["quant-1"], 10, "plain", False))))
    assert unjailed[0] == [UNISOLATED_NOTE] and unjailed[1][0] == "id"


def _lms_rows() -> list[Row]:
    return [Row(Student("s1", "Ada Lovelace", "ada@example.org", "A", "SIS-0001"),
                _result("s1", 7.5), "ok"),
            Row(Student("s2", "Bob Stone", "bob@example.org", "B"), None, "no submission"),
            Row(Student("s3", "Cy Young", "cy@example.org", "A"),
                _result("s3", 0, error="TimeoutError: stuck"), "not graded: TimeoutError")]


def test_canvas_follows_its_published_columns_with_the_lms_id_and_no_false_zeros() -> None:
    for isolated in (True, False):  # --no-isolation's warning never sits above the header
        canvas = list(csv.reader(io.StringIO(csv_text(_lms_rows(), ["quant-1"], 10, "canvas",
                                                      isolated))))
        # Canvas's Gradebook import: Student, ID, SIS User ID, SIS Login ID, Section,
        # assignments; the optional second row gives each assignment's points possible.
        assert tuple(canvas[0][:5]) == CANVAS_COLUMNS == (
            "Student", "ID", "SIS User ID", "SIS Login ID", "Section")
        assert canvas[1][0] == "Points Possible" and canvas[1][5] == "10"
        assert canvas[2] == ["Ada Lovelace", "", "SIS-0001", "ada@example.org", "A", "7.5"]
        # nothing graded: an empty grade (Canvas leaves it alone), never a 0
        assert canvas[3] == ["Bob Stone", "", "s2", "bob@example.org", "B", ""]
        assert canvas[4][2] == "s3" and canvas[4][5] == ""


def test_moodle_gets_a_percentage_within_the_default_maximum_and_each_rows_status() -> None:
    rows = [*_lms_rows(), Row(Student("s4", "Dee", "dee@example.org"), _result("s4", 10), "ok")]
    for isolated in (True, False):
        moodle = list(csv.reader(io.StringIO(csv_text(rows, ["quant-1"], 10, "moodle",
                                                      isolated))))
        assert tuple(moodle[0][:4]) == MOODLE_COLUMNS == (
            "ID number", "Email address", "First name", "Last name")
        assert moodle[0][4:] == ["RouterLab exercises (%)", "RouterLab exercises feedback"]
        assert moodle[1] == ["SIS-0001", "ada@example.org", "Ada", "Lovelace", "75", ""]
        assert moodle[2][0] == "s2" and moodle[2][4:] == ["", "no submission"]
        assert moodle[3][4] == "" and moodle[3][5].startswith("not graded")
        assert moodle[4][4] == "100"  # full marks: Moodle's default grade item maximum
        assert all(float(r[4]) <= 100 for r in moodle[1:] if r[4])


def test_a_roster_may_give_an_lms_id_beside_the_hub_id(tmp_path: Path) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email,section,lms_id\nada,Ada,a@x,A,SIS-7\nbob,Bob,b@x,B,\n")
    ada, bob = read_roster(roster)
    assert (ada.id, ada.lms_id) == ("ada", "SIS-7") and (bob.id, bob.lms_id) == ("bob", "")
    assert [Row(s, None, "").lms_id for s in (ada, bob)] == ["SIS-7", "bob"]


@pytest.mark.parametrize("cell, shown", [
    ("=1+1", "'=1+1"), ("+1", "'+1"), ("-2", "'-2"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\tx", "'\tx"), ("\rx", "'\rx"), ("Ada;=cmd()", "Ada;'=cmd()"),
    ("Ada, -1+2", "Ada, '-1+2"), ("Ada Lovelace", "Ada Lovelace"), (3, 3),
])
def test_every_cell_a_spreadsheet_could_run_is_neutralised(cell: object, shown: object) -> None:
    assert neutral(cell) == shown


def test_the_digest_uses_paths_relative_to_the_submissions_and_covers_the_csv(
        tmp_path: Path) -> None:
    subs = tmp_path / "submitted"
    (subs / "s1" / "exercises").mkdir(parents=True)
    handed = subs / "s1" / "exercises" / "quant_1.py"
    handed.write_text("x = 1\n")
    import hashlib

    result = _result("s1", 10)
    result.submission = str(subs / "s1")
    result.exercises[0].sha256 = hashlib.sha256(handed.read_bytes()).hexdigest()
    grades = tmp_path / "grades.csv"
    grades.write_text("id,points\ns1,10\n")
    digest = write_digest(tmp_path / "grades.sha256", subs, [result], grades, "cafe")
    lines = digest.read_text().splitlines()
    assert lines[0] == "# routerlab catalog cafe"
    assert lines[1].endswith("  s1/exercises/quant_1.py") and lines[2].endswith("  ../grades.csv")
    ok = subprocess.run(["sha256sum", "-c", str(digest)], cwd=subs, capture_output=True,
                        text=True, check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    grades.write_text("id,points\ns1,405\n")  # a later edit of the grades
    bad = subprocess.run(["sha256sum", "-c", str(digest)], cwd=subs, capture_output=True,
                         text=True, check=False)
    assert bad.returncode != 0 and "grades.csv: FAILED" in bad.stdout


def test_results_round_trip_through_json_and_the_journal(tmp_path: Path) -> None:
    result = _result("s1", 7.5)
    assert StudentResult.from_json(json.loads(json.dumps(result.to_json()))) == result
    job = GradeJob("s1", "/subs/s1", None, GradeOptions(isolation=False))
    assert GradeJob.from_json(json.loads(json.dumps(job.to_json()))) == job
    journal = ResumeFile(tmp_path / "grades.jsonl")
    journal.start(keep=False)
    journal.append(result)
    with journal.path.open("a") as handle:
        handle.write('{"format": "routerlab-student-result", "student_id": "cut sh')  # a crash
    assert list(journal.read()) == ["/subs/s1"]  # keyed by folder: one id may claim two


class _Fake:
    """An executor that returns prepared results in reverse order (any order must do)."""

    def __init__(self, results: dict[str, StudentResult]) -> None:
        self.results = results

    def run(self, jobs):  # noqa: ANN001, ANN201 - the Executor protocol
        for job in reversed(list(jobs)):
            yield self.results[job.student_id]


def test_grade_class_hands_each_result_on_as_it_arrives() -> None:
    results = {"s1": _result("s1", 10), "s2": _result("s2", 0, error="TimeoutError: stuck")}
    seen: list[str] = []
    out = grade_class([GradeJob(s, f"/subs/{s}") for s in ("s1", "s2")], _Fake(results),
                      lambda r: seen.append(r.student_id))
    assert seen == ["s2", "s1"] and [r.student_id for r in out] == seen


# --- feedback ----------------------------------------------------------------------------------

def test_feedback_shows_visible_expected_values_and_never_a_hidden_one(tmp_path: Path) -> None:
    result = _result("s1", 0)
    result.exercises[0].checks[1].expected = "0.0283"  # even if a result carried one
    data = feedback_json(result)
    checks = data["exercises"][0]["checks"]
    assert checks[0]["expected"] == "0.0141" and checks[0]["got"] == "0.5"
    assert "expected" not in checks[1]
    page = feedback_html(result)
    assert "0.0141" in page and "0.0283" not in page and "no expected value shown" in page
    assert "routerlab exercises hint quant-1" in page
    html_path, json_path = write_feedback(tmp_path, result)
    assert html_path.name == "s1.html" and json.loads(json_path.read_text())["student_id"] == "s1"


# --- teacher grades: self-reported exports ----------------------------------------------------

def _export(student: str, mode: str) -> dict:
    entry = {"id": "quant-3", "passed": True, "points": 10, "points_possible": 10,
             "attempts": 1, "attempts_to_pass": 1, "hint_level": 0, "solution_viewed": False}
    return {"format": "routerlab-exercise-results", "student": student, "mode": mode,
            "exported_at": "2026-01-01T00:00:00+00:00", "exercises": [entry]}


def test_teacher_grades_labels_exports_self_reported_and_refuses_a_class_workspaces(
        tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from routerlab.cli.app import app

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "ada.json").write_text(json.dumps(_export("ada", "self-study")))
    (inbox / "eve.json").write_text(json.dumps(_export("eve", "class")))  # hand-edited, 10/10
    done = CliRunner().invoke(app, ["teacher", "grades", str(inbox), "--plain"])
    assert done.exit_code == 0, done.output
    assert "eve.json: rejected" in done.output and "teacher recheck" in done.output
    rows = list(csv.DictReader((inbox / "grades.csv").open()))
    assert [(r["student"], r["source"]) for r in rows] == [("ada", "self-reported")]
    (inbox / "ada.json").unlink()
    refused = CliRunner().invoke(app, ["teacher", "grades", str(inbox), "--plain"])
    assert refused.exit_code != 0 and "self-reported" in str(refused.exception)


def test_a_file_too_large_to_be_an_exercise_is_that_exercises_error_not_the_students(
        tmp_path: Path) -> None:
    from routerlab.exercises.learner.workspace import init_workspace
    from routerlab.exercises.teacher.classroom import grade_student

    workspace = init_workspace(tmp_path / "ws", "ada")[0]
    exercise = load_catalog().get("flow-1")
    workspace.file_for(exercise).write_text("SERVERS = 1\n" + "#" * 300_000 + "\n")
    result = grade_student(workspace.root, options=GradeOptions(isolation=False))
    assert result.error == ""
    graded = next(e for e in result.exercises if e.id == "flow-1")
    assert graded.status == "error" and "more than" in graded.problem and graded.points == 0
