"""A hostile class against the teacher's own process (issue 33 §1-§5, §14): each attack in one
class graded by a real `teacher recheck`, beside an honest control that must keep exactly its
points. The attacks aim at what the teacher's process reads and writes, not at the jail
(tests/exercises/test_jail.py): strings it cannot encode, literals it cannot afford to compute,
links it must not follow, bytes it must hash as they are, ids that collide, a full disk."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import catalog_root, load_catalog
from routerlab.exercises.engine.jail import unavailable
from routerlab.exercises.engine.literals import literal_answers
from routerlab.exercises.learner.workspace import MARKER, init_workspace
from routerlab.exercises.teacher.classroom import (
    ExerciseResult,
    GradeJob,
    StudentResult,
    catalog_version,
)
from routerlab.exercises.teacher.feedback import file_stem, write_feedback
from routerlab.exercises.teacher.gradebook import ResumeFile
from routerlab.exercises.teacher.intake import Refused, clean, read_file
from routerlab.exercises.teacher.regrade import Outputs, plan_class, regrade

TOKEN = uuid.uuid4().hex
SECRET = f"TEACHER_SECRET_{TOKEN}"
EXERCISES = ("registry-1", "registry-2")
"""One implement exercise (run in the jail) and one predict exercise (read as data)."""

SURROGATE = 'raise RuntimeError("bad bytes: \\udcff")\n'
"""An exception text with a lone surrogate: Python makes it, UTF-8 cannot encode it."""
BOMB = 'ADD_STATUSES = ((10**1024)**1024)**1024\nREAD_A = "\\udcff"\n'
"""A literal whose every exponent is small and whose value would take hours; an answer with a
lone surrogate."""


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The teacher's course folder with only the two exercises the attacks need."""
    folder = tmp_path_factory.mktemp("course") / "course"
    shutil.copytree(Path(str(catalog_root())), folder)
    (folder / "index.toml").write_text(f"order = {json.dumps(list(EXERCISES))}\n")
    return folder


def _solution(exercise_id: str) -> str:
    return open_solution(load_catalog().get(exercise_id))


def _points(exercise_id: str) -> int:
    return load_catalog().get(exercise_id).points


def _hand_in(folder: Path, files: dict[str, str | bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        path = folder / name
        path.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))


def _class(tmp_path: Path) -> tuple[Path, Path, dict[str, float]]:
    """The submissions, the roster, and each student's exact points."""
    subs = tmp_path / "submitted"
    secret = tmp_path / "teacher" / "answers.py"  # one line: a NameError would echo it
    secret.parent.mkdir()
    secret.write_text(SECRET + "\n")
    honest = {"registry_1.py": _solution("registry-1"), "registry_2.py": _solution("registry-2")}
    _hand_in(subs / "honest", honest)
    # §1: a lone surrogate in an exception text, next to an honest predict file
    _hand_in(subs / "surrogate", {"registry_1.py": SURROGATE,
                                  "registry_2.py": honest["registry_2.py"]})
    # §2: a literal bomb, next to an honest implement file
    _hand_in(subs / "bomb", {"registry_1.py": honest["registry_1.py"], "registry_2.py": BOMB})
    # §3: a file linked to a teacher's file, a file linked to another student's
    _hand_in(subs / "linkfile", {})
    (subs / "linkfile" / "registry_1.py").symlink_to(secret)
    (subs / "linkfile" / "registry_2.py").symlink_to(subs / "honest" / "registry_2.py")
    # §3: an `exercises/` folder linked to another student's; a submission folder that is a link
    _hand_in(subs / "linkdir", {})
    (subs / "linkdir" / "exercises").symlink_to(subs / "honest")
    (subs / "linkfolder").symlink_to(subs / "honest")
    # §1: a folder whose name is no UTF-8 (not on the roster: a warning, in clean text)
    os.mkdir(bytes(subs) + b"/\xff-stranger")
    # §4: one Latin-1 byte in a comment of an otherwise honest file
    _hand_in(subs / "latin1", {"registry_1.py": honest["registry_1.py"].encode() + b"# caf\xe9\n",
                               "registry_2.py": honest["registry_2.py"]})
    points = {"honest": _points("registry-1") + _points("registry-2"),
              "surrogate": _points("registry-2"), "bomb": _points("registry-1"),
              "linkfile": 0, "linkdir": 0, "linkfolder": 0,
              "latin1": _points("registry-1") + _points("registry-2")}
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email,lms_id\n" + "".join(
        f"{sid},{sid.title()} Student,{sid}@example.org,SIS-{n}\n"
        for n, sid in enumerate(points)))
    return subs, roster, points


@pytest.mark.skipif(unavailable() is not None, reason="the jail needs bubblewrap")
def test_a_hostile_class_costs_each_attacker_its_own_points_and_the_control_none(
        course: Path, tmp_path: Path) -> None:
    subs, roster, points = _class(tmp_path)
    grades, feedback = tmp_path / "grades" / "g.csv", tmp_path / "feedback"
    grades.parent.mkdir()
    done = CliRunner().invoke(app, [
        "teacher", "recheck", str(subs), "--roster", str(roster), "--out", str(grades),
        "--catalog", str(course), "--jobs", "2", "--feedback", str(feedback), "--plain"])
    assert done.exit_code == 0, done.output
    assert "\ufffd-stranger: a submission whose id is not on the roster" in done.output
    rows = {r["id"]: r for r in csv.DictReader(grades.open(encoding="utf-8"))}
    assert {sid: float(r["points"]) for sid, r in rows.items()} == points, [
        (r["id"], r["points"], r["status"]) for r in rows.values()]
    assert rows["honest"]["status"] == "ok"
    results = {r.student_id: r for r in ResumeFile(grades.with_suffix(".jsonl")).read().values()}
    by = {sid: {e.id: e for e in r.exercises} for sid, r in results.items()}

    # §1: the surrogate became U+FFFD once, at the boundary; every output was written
    problem = by["surrogate"]["registry-1"]
    assert "bad bytes" in problem.problem + str([c.message for c in problem.checks])
    page = (feedback / "surrogate.html").read_text(encoding="utf-8")
    assert "bad bytes: \ufffd" in page
    assert sorted(p.stem for p in feedback.glob("*.html")) == sorted(points)
    # §2: the bomb is refused as an answer, not computed; the class went on
    messages = " ".join(c.message + str(c.got) for c in by["bomb"]["registry-2"].checks)
    assert "too large" in messages
    # §3: a link is not a submission, and the row says why; the teacher's file was never read
    for exercise in by["linkfile"].values():
        assert exercise.points == 0 and "link" in exercise.problem, exercise
    assert all("link" in e.problem for e in by["linkdir"].values())
    assert results["linkfolder"].error and "link" in rows["linkfolder"]["status"]
    everything = [done.output, *(p.read_text(encoding="utf-8", errors="replace")
                                 for folder in (grades.parent, feedback)
                                 for p in folder.iterdir())]
    assert not [text for text in everything if SECRET in text]
    # §4: one odd byte costs the student nothing (a comment is no code; at worst it could
    # fail its own file); the teacher hashed the bytes as handed in
    latin = by["latin1"]["registry-1"]
    assert results["latin1"].error == "" and latin.passed
    handed = (subs / "latin1" / "registry_1.py").read_bytes()
    assert latin.sha256 == hashlib.sha256(handed).hexdigest()  # the bytes, as handed in
    assert by["latin1"]["registry-2"].passed
    check = subprocess.run(["sha256sum", "-c", str(grades.with_suffix(".sha256").resolve())],
                           cwd=subs, capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def test_reading_a_submission_refuses_links_and_paths_that_leave_the_folder(
        tmp_path: Path) -> None:
    mine, other = tmp_path / "mine", tmp_path / "other"
    _hand_in(other, {"registry_1.py": "x = 1\n"})
    _hand_in(mine, {"own.py": b"# caf\xe9\n"})
    (mine / "linked.py").symlink_to(other / "registry_1.py")
    (mine / "inside-link.py").symlink_to(mine / "own.py")  # even pointing home: a link
    (mine / "exercises").symlink_to(other)
    root = mine.resolve()
    assert read_file(root, mine / "own.py") == b"# caf\xe9\n"
    for path in (mine / "linked.py", mine / "inside-link.py", mine / "exercises" / "registry_1.py"):
        with pytest.raises(Refused, match="link"):
            read_file(root, path)


def test_a_predict_literal_is_bounded_by_its_value_before_it_is_computed() -> None:
    """In a child with a deadline: before the bound, this literal held the process for hours."""
    code = textwrap.dedent(f"""
        from routerlab.exercises.engine.literals import literal_answers
        got = literal_answers({BOMB!r} + "IDS_AFTER = 2 ** 10 * 3\\nMUL_STATUSES = 10 ** 1024\\n",
                              ["ADD_STATUSES", "IDS_AFTER", "MUL_STATUSES"])
        print(got["ADD_STATUSES"]["not_data"], got["IDS_AFTER"], got["MUL_STATUSES"] == 10**1024)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["a", "number", "too", "large", "to", "be", "an", "answer",
                                   "3072", "True"]
    for bomb in ("10**1024 * 10**1024 * 10**1024 * 10**1024 * 10**1024",
                 "(2**1024)**1024", "(-(10**1024))**1024"):
        assert "too large" in literal_answers(f"X = {bomb}\n", ["X"])["X"]["not_data"]


def test_a_lone_surrogate_is_cleaned_once_and_every_output_can_be_written(
        tmp_path: Path) -> None:
    assert clean("bad bytes: \udcff and \ud800") == "bad bytes: \ufffd and \ufffd"
    assert clean("café ✓") == "café ✓"
    raw = StudentResult("s1", "/subs/s1", [ExerciseResult(
        "registry-1", "t", "implement", 0, 10, False, "error",
        problem="RuntimeError: bad bytes: \udcff", output="\udcff")], error="")
    # the journal (JSON escapes a surrogate) hands it back: read, it is clean
    arrived = StudentResult.from_json(json.loads(json.dumps(raw.to_json())))
    assert arrived.exercises[0].problem == "RuntimeError: bad bytes: \ufffd"
    page, _ = write_feedback(tmp_path, arrived)
    assert "\ufffd" in page.read_text(encoding="utf-8")


def _victims(root: Path) -> list[Path]:
    """Two class workspaces whose markers both say `victim`."""
    folders = []
    for name in ("victim", "attacker"):
        workspace = init_workspace(root / name, name)[0]
        marker = workspace.root / MARKER
        marker.write_text(marker.read_text() + 'student_id = "victim"\n')
        folders.append(workspace.root)
    return folders


class _ByFolder:
    """An executor that gives each folder its own points (the attacker's more)."""

    def run(self, jobs: list[GradeJob]):  # noqa: ANN201 - the Executor protocol
        for job in reversed(jobs):
            points = 10.0 if job.submission.endswith("attacker") else 3.0
            yield StudentResult(job.student_id, job.submission, [ExerciseResult(
                "registry-1", "t", "implement", points, 10, points == 10, "passed")])


def test_two_folders_with_one_id_and_no_roster_keep_a_row_and_a_feedback_file_each(
        tmp_path: Path) -> None:
    stranger = Path(os.fsdecode(bytes(tmp_path) + b"/subs/\xe9l\xe8ve"))  # a name no UTF-8
    stranger.mkdir(parents=True)
    plan = plan_class([*_victims(tmp_path / "subs"), stranger], None)
    assert any("victim: 2 folders have this id" in p for p in plan.problems)
    out = Outputs.beside(tmp_path / "g.csv", tmp_path / "feedback")
    summary = regrade(plan, out, _ByFolder())
    rows = list(csv.DictReader(out.csv.open()))
    assert [(r["id"], r["points"]) for r in rows] == [("victim", "3"), ("victim", "10"),
                                                      ("\ufffdl\ufffdve", "3")]
    assert all("id claimed twice" in r["status"] for r in rows[:2])
    assert sorted(summary.results) == ["victim.attacker", "victim.victim", "\ufffdl\ufffdve"]
    pages = {p.stem: json.loads(p.read_text())["points"] for p in out.feedback.glob("*.json")}
    assert pages == {"victim.attacker": 10, "victim.victim": 3,
                     file_stem("\ufffdl\ufffdve"): 3}  # a prefix and a digest: injective
    assert len(out.journal.read_text().splitlines()) == 3  # every result, none replaced


class _Slow:
    """Hands out prepared results; `big` ones carry a long printed output."""

    def __init__(self, big: set[str]) -> None:
        self.big = big

    def run(self, jobs: list[GradeJob]):  # noqa: ANN201 - the Executor protocol
        version = catalog_version(load_catalog())  # as graded against it, so --resume keeps it
        for job in jobs:
            output = "x" * 200_000 if job.student_id in self.big else ""
            yield StudentResult(job.student_id, job.submission, [ExerciseResult(
                "registry-1", "t", "implement", 10, 10, True, "passed", output=output)],
                catalog_version=version)


DISK_FULL = """
import resource, signal, sys
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full file: EFBIG, as ENOSPC on a full disk
sys.path.insert(0, {tests!r})
from test_hostile_class import _Slow
from routerlab.exercises.errors import GradesError
from routerlab.exercises.teacher.regrade import Outputs, plan_class, regrade
plan = plan_class([Path(p) for p in sys.argv[2:]], Path(sys.argv[1]))
resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))
try:
    regrade(plan, Outputs.beside(Path({csv!r}), None), _Slow({big}), resume={resume})
except GradesError as error:
    print(error)
    sys.exit(1)
"""


def test_a_full_disk_leaves_whole_files_and_resume_skips_what_a_crash_tore(
        tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    for sid in ("s1", "s2"):
        (subs / sid).mkdir(parents=True)
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\ns1,A,a@x\ns2,B,b@x\ns3,C,c@x\n")
    grades = tmp_path / "out" / "g.csv"
    grades.parent.mkdir()
    def script(big: str, resume: bool) -> str:
        return DISK_FULL.format(tests=str(Path(__file__).parent), csv=str(grades), big=big,
                                resume=resume)

    done = subprocess.run([sys.executable, "-c", script("{'s2'}", False), str(roster), str(subs)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stdout.count("\n") == 1 and "File too large" in done.stdout, done.stdout
    assert "Traceback" not in done.stderr
    # whole files only: no temporary file left, the journal ends with a whole record
    assert sorted(p.name for p in grades.parent.iterdir()) == ["g.class.json", "g.csv", "g.jsonl"]
    assert grades.with_suffix(".jsonl").read_bytes().endswith(b"\n")
    # no false zeros: only the graded student is listed, not s2 (refused) nor s3 (no folder)
    rows = list(csv.DictReader(grades.open()))
    assert [(r["id"], r["points"], r["status"]) for r in rows] == [("s1", "10", "ok")]
    # a crash tears the last line; --resume skips it and its next record stays whole
    journal = grades.with_suffix(".jsonl")
    with journal.open("a") as handle:
        handle.write('{"format": "routerlab-student-result", "student_id": "s2", "subm')
    again = subprocess.run(
        [sys.executable, "-c", script("set()", True), str(roster), str(subs)],
        capture_output=True, text=True, timeout=120, check=False)
    assert again.returncode == 0, again.stdout + again.stderr
    assert [r.student_id for r in ResumeFile(journal).read().values()] == ["s1", "s2"]
    assert all(json.loads(line) for line in journal.read_text().splitlines())
    rows = list(csv.DictReader(grades.open()))
    assert [(r["id"], r["status"]) for r in rows] == [("s1", "ok"), ("s2", "ok"),
                                                      ("s3", "no submission")]


def test_a_linked_marker_or_progress_file_is_never_read(course: Path, tmp_path: Path) -> None:
    """The workspace marker names the student and the progress file feeds the report: a link in
    either place would make the teacher's process read a file of the teacher's own."""
    from routerlab.exercises.teacher.analytics import progress_records
    from routerlab.exercises.teacher.classroom import GradeOptions, grade_student
    from routerlab.exercises.teacher.roster import workspace_id

    secret = tmp_path / "teacher.toml"
    secret.write_text(f'student_id = "{SECRET}"\nstudent = "{SECRET}"\n')
    folder = tmp_path / "mallory"
    (folder / ".routerlab").mkdir(parents=True)
    (folder / MARKER).symlink_to(secret)
    (folder / ".routerlab" / "state.json").symlink_to(tmp_path / "teacher.json")
    (tmp_path / "teacher.json").write_text(json.dumps({"version": 1, "exercises": {
        "registry-1": {"status": "passed", "attempts": 1, "hint_level": 0}}}))
    assert workspace_id(folder) is None
    result = grade_student(folder, course, GradeOptions(isolation=False), "mallory")
    assert "link" in result.error and SECRET not in json.dumps(result.to_json())
    assert progress_records(result) is None
    (folder / ".routerlab" / "state.json").unlink()
    (folder / ".routerlab" / "state.json").write_text((tmp_path / "teacher.json").read_text())
    assert progress_records(result) is not None  # the student's own file is read
