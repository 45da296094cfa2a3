"""The course gradebook (routerlab.exercises.teacher.gradebook_db): its schema and migrations, a
newer file refused untouched, a writer killed at random instants leaving a clean database, and a
grade computed from the record (last run, override, late policy, extension), every refusal
leaving the database as it was."""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from routerlab.exercises.catalog import Catalog, load_catalog
from routerlab.exercises.errors import GradesError
from routerlab.exercises.teacher import gradebook_term as term
from routerlab.exercises.teacher.gradebook_db import (
    MIGRATIONS,
    SCHEMA_VERSION,
    Gradebook,
    StudentRow,
    db_path,
)
from routerlab.exercises.teacher.gradebook_grades import parse_policy, parse_when, penalty
from routerlab.exercises.teacher.roster import Student

COURSE = "term-2027"


@pytest.fixture
def course(graded_course: Callable[[str, dict[str, float]], Catalog]) -> Iterator[str]:
    """A released course with two students graded once: ada everything, ben one exercise."""
    graded_course(COURSE, {"quant-1": 10.0})
    yield COURSE


def _dump(course: str) -> list[str]:
    with sqlite3.connect(db_path(course)) as db:
        return list(db.iterdump())


def test_a_new_gradebook_has_the_current_schema_beside_the_secret(course: str) -> None:
    path = db_path(course)
    assert path.name == "gradebook.sqlite" and (path.parent / "secret.toml").is_file()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_an_older_gradebook_is_migrated_and_keeps_its_record(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    Gradebook(path, MIGRATIONS[:1]).close()  # a file of schema 1: no late policy
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO assignments VALUES ('hw1', '', '2027-01-01T00:00:00+00:00', 0)")
    with Gradebook(path) as book:
        assert book.version == 2
        assert book.rows("SELECT id, policy FROM assignments") == [("hw1", '{"kind": "none"}')]


def test_a_gradebook_from_a_newer_routerlab_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    Gradebook(path).close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 7")
    before = path.read_bytes()
    with pytest.raises(GradesError, match="newer RouterLab"):
        Gradebook(path)
    assert path.read_bytes() == before


def test_a_file_that_is_no_database_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "gradebook.sqlite"
    path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(GradesError, match="not a RouterLab gradebook"):
        Gradebook(path)


WRITER = textwrap.dedent("""
    import sys
    from routerlab.exercises.teacher.gradebook_db import Gradebook
    book = Gradebook(__import__("pathlib").Path(sys.argv[1]))
    possible = {f"ex-{i}": 10 for i in range(40)}
    students = [(f"s{n}", True, "ok", {e: (float(n % 11), "f.py") for e in possible})
                for n in range(60)]
    print("ready", flush=True)
    while True:
        book.add_run("kill", "v", possible, students)
        book.add_collection("s1", "hub", "", {f"f{i}.py": ("0" * 64, "") for i in range(20)})
""")


def test_a_writer_killed_at_any_instant_leaves_a_clean_whole_database(tmp_path: Path) -> None:
    """SIGKILL a process writing grading runs and collections at random instants: each time,
    `PRAGMA integrity_check` is ok and every run is whole (60 students, 40 exercises each)."""
    path = tmp_path / "gradebook.sqlite"
    rng = random.Random(38)
    kills = 0
    for _ in range(6):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)],
                                  stdout=subprocess.PIPE, text=True)
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.4))
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
        kills += writer.returncode == -signal.SIGKILL
        with sqlite3.connect(path) as db:
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            runs = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            assert db.execute("SELECT COUNT(*) FROM run_students").fetchone()[0] == 60 * runs
            assert db.execute("SELECT COUNT(*) FROM run_points").fetchone()[0] == 2400 * runs
            collections = db.execute("SELECT COUNT(*) FROM collections").fetchone()[0]
            assert db.execute("SELECT COUNT(*) FROM collection_files").fetchone()[0] == \
                20 * collections
    assert kills == 6
    with Gradebook(path) as book:  # and it opens and writes again
        book.add_run("after", "v", {"ex-0": 10}, [("s0", True, "ok", {"ex-0": (1.0, "f.py")})])


def test_dates_and_policies_in_the_wrong_form_are_one_line() -> None:
    assert parse_when("2027-03-01") == "2027-03-01T23:59:59+00:00"
    assert parse_when("2027-03-01T12:00+02:00") == "2027-03-01T10:00:00+00:00"
    for bad in ("01/03/2027", "tomorrow", "2027-13-01", ""):
        with pytest.raises(GradesError, match="is not a date"):
            parse_when(bad)
    for late in ("10", "10%/week", "0%/day", "150%/day", "x%/day"):
        with pytest.raises(GradesError, match="--late"):
            parse_policy(late, None, None)
    with pytest.raises(GradesError, match="--cap"):
        parse_policy("10%/day", 120, None)


def test_the_late_policy_counts_started_days_up_to_its_cap_and_zero_after_a_date() -> None:
    due = "2027-03-01T23:59:59+00:00"
    per_day = parse_policy("10%/day", 25, "2027-03-10")
    assert penalty(per_day, due, "2027-03-01T23:00:00+00:00") == 0
    assert penalty(per_day, due, "2027-03-02T00:30:00+00:00") == 10  # one started day
    assert penalty(per_day, due, "2027-03-03T12:00:00+00:00") == 20
    assert penalty(per_day, due, "2027-03-06T12:00:00+00:00") == 25  # the cap
    assert penalty(per_day, due, "2027-03-11T00:00:00+00:00") == 100  # after zero-after
    assert penalty(parse_policy("2%/hour", None, None), due, "2027-03-02T03:00:00+00:00") == 8
    assert penalty(parse_policy("none", None, None), due, "2027-03-09T00:00:00+00:00") == 0


def _collect(course: str, student: str, when: str) -> None:
    term.record_collection(course, student, "http://127.0.0.1:1", "",
                           {"exercises/quant_1.py": ("0" * 64, when)})


def test_a_grade_is_the_last_run_with_the_late_policy_an_extension_and_an_override(
        course: str) -> None:
    catalog = load_catalog()
    term.set_assignment(course, "hw1", ["quant-1"], catalog, "2027-03-01", late="10%/day")
    _collect(course, "ben", "2027-03-03T08:00:00Z")  # two started days late: -20%
    ben = term.history(course, "ben")[-1]
    assert ben["points"] == 8 and any("late" in n for n in ben["notes"])
    term.extend(course, "ben", "hw1", "2027-03-05")
    assert term.history(course, "ben")[-1]["points"] == 10, "the extension's date counts"
    done = term.override(course, "ben", "quant-1", 7, "a typo in the statement")
    assert (done.old, done.new, done.points) == (10, 7, 7)
    kinds = [e["kind"] for e in term.history(course, "ben")]
    assert kinds == ["grading", "collection", "extension", "override", "grade"]
    ada = term.history(course, "ada")[-1]
    assert ada["points"] == catalog.total_points and ada["notes"] == []


@pytest.mark.parametrize("call, said", [
    (lambda c: term.override(c, "zed", "quant-1", 1, "why"), "not a student"),
    (lambda c: term.override(c, "ben", "no-such-1", 1, "why"), "not an exercise"),
    (lambda c: term.override(c, "ben", "quant-1", 11, "why"), "worth 0 to 10"),
    (lambda c: term.override(c, "ben", "quant-1", 1, "  "), "--reason"),
    (lambda c: term.extend(c, "ben", "hw9", "2027-03-05"), "not an assignment"),
    (lambda c: term.extend(c, "zed", "hw1", "2027-03-05"), "not a student"),
    (lambda c: term.extend(c, "ben", "hw1", "next friday"), "is not a date"),
    (lambda c: term.set_assignment(c, "hw2", ["nope-1"], load_catalog(), "2027-03-01"),
     "not exercises"),
    (lambda c: term.history("no-such-course", "ben"), "no course"),
    (lambda c: term.history("../etc", "ben"), "course id"),
])
def test_bad_input_is_refused_and_changes_nothing(course: str, call: object, said: str) -> None:
    term.set_assignment(course, "hw1", ["quant-1"], load_catalog(), "2027-03-01")
    before = _dump(course)
    with pytest.raises(GradesError, match=said):
        call(course)  # type: ignore[operator]
    assert _dump(course) == before


def test_an_override_on_a_student_never_graded_is_refused(course: str) -> None:
    term.record_roster(course, [Student("cy", "Cy N", "cy@x.org")])
    before = _dump(course)
    with pytest.raises(GradesError, match="never graded"):
        term.override(course, "cy", "quant-1", 5, "why")
    assert _dump(course) == before


def test_a_roster_again_updates_details_and_drops_nobody(course: str) -> None:
    term.record_roster(course, [Student("ben", "Ben Moved", "ben@y.org", "C", "L-2")])
    with Gradebook.of_course(course) as book:
        assert [s.id for s in book.students()] == ["ada", "ben"]
        assert book.student("ben") == StudentRow("ben", "Ben Moved", "ben@y.org", "C", "L-2")
