"""A course's gradebook: one SQLite file beside the course secret, the term's record of truth.

`$XDG_DATA_HOME/routerlab/courses/<course>/gradebook.sqlite` holds the roster, the assignments
(exercises, opening and due date, late policy), every collection off the hub (each file's time as
the hub reports it; a re-collect appends), every grading run (when, RouterLab's and the catalog's
version, each student's per-exercise points), overrides (who, when, why, old and new points) and
extensions. Nothing is ever updated in place but the roster and an assignment's definition: a
grade is computed from the record (`routerlab.exercises.teacher.gradebook_grades`), so its
history is the record itself.

Why the standard library's `sqlite3` (not SQLAlchemy, as nbgrader uses): a dozen tables and
plain SQL need no ORM, and RouterLab gains no dependency. Every write is one transaction
(`BEGIN IMMEDIATE` ... `COMMIT`) with `synchronous=FULL` and SQLite's rollback journal, so a
process killed at any instant leaves the last committed state and a clean `PRAGMA
integrity_check` (tests/exercises/test_gradebook_db.py kills writers to show it). The schema
version is SQLite's `user_version`; `MIGRATIONS` brings an older file up to date in one
transaction, and a file from a newer RouterLab is refused, never written.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import GradesError

DB_FILE = "gradebook.sqlite"


def _script(db: sqlite3.Connection, script: str) -> None:
    """Statements one by one, inside the caller's transaction (`executescript` would commit
    first)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _v1(db: sqlite3.Connection) -> None:
    """The term's record: roster, assignments, collections, grading runs, overrides,
    extensions."""
    _script(db, """
        CREATE TABLE students (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL,
            section TEXT NOT NULL, lms_id TEXT NOT NULL, position INTEGER NOT NULL);
        CREATE TABLE assignments (id TEXT PRIMARY KEY, opens TEXT NOT NULL, due TEXT NOT NULL,
            position INTEGER NOT NULL);
        CREATE TABLE assignment_exercises (assignment TEXT NOT NULL REFERENCES assignments(id),
            exercise TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (assignment, exercise));
        CREATE TABLE collections (id INTEGER PRIMARY KEY, student TEXT NOT NULL, at TEXT NOT NULL,
            hub TEXT NOT NULL, server_state TEXT NOT NULL);
        CREATE TABLE collection_files (collection INTEGER NOT NULL REFERENCES collections(id),
            path TEXT NOT NULL, sha256 TEXT NOT NULL, modified TEXT NOT NULL);
        CREATE TABLE runs (id INTEGER PRIMARY KEY, at TEXT NOT NULL, routerlab TEXT NOT NULL,
            catalog_version TEXT NOT NULL, exercises TEXT NOT NULL, possible TEXT NOT NULL);
        CREATE TABLE run_students (run INTEGER NOT NULL REFERENCES runs(id), student TEXT NOT NULL,
            graded INTEGER NOT NULL, status TEXT NOT NULL, PRIMARY KEY (run, student));
        CREATE TABLE run_points (run INTEGER NOT NULL REFERENCES runs(id), student TEXT NOT NULL,
            exercise TEXT NOT NULL, points REAL NOT NULL, file TEXT NOT NULL,
            PRIMARY KEY (run, student, exercise));
        CREATE TABLE overrides (id INTEGER PRIMARY KEY, student TEXT NOT NULL,
            exercise TEXT NOT NULL, old REAL, new REAL NOT NULL, reason TEXT NOT NULL,
            who TEXT NOT NULL, at TEXT NOT NULL);
        CREATE TABLE extensions (id INTEGER PRIMARY KEY, student TEXT NOT NULL,
            assignment TEXT NOT NULL REFERENCES assignments(id), due TEXT NOT NULL,
            who TEXT NOT NULL, at TEXT NOT NULL);
    """)


def _v2(db: sqlite3.Connection) -> None:
    """The late policy per assignment (version 1 files have none: no penalty), and the indexes
    a grade's look-ups use."""
    _script(db, """
        ALTER TABLE assignments ADD COLUMN policy TEXT NOT NULL DEFAULT '{"kind": "none"}';
        CREATE INDEX collections_by_student ON collections (student, id);
        CREATE INDEX run_students_by_student ON run_students (student, run);
        CREATE INDEX collection_files_by_collection ON collection_files (collection);
    """)


MIGRATIONS: Sequence[Callable[[sqlite3.Connection], None]] = (_v1, _v2)
"""Schema version N is `MIGRATIONS[:N]` applied in order (SQLite's `user_version` holds N)."""
SCHEMA_VERSION = len(MIGRATIONS)


def db_path(course_id: str) -> Path:
    """Beside the course secret, in the teacher's own data folder."""
    from ..authoring.secret import secret_path

    return secret_path(course_id).parent / DB_FILE


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def who() -> str:
    """Who made a change, as the operating system names the teacher."""
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        return os.environ.get("USER", "teacher")


@dataclass(frozen=True)
class StudentRow:
    id: str
    name: str
    email: str
    section: str
    lms_id: str


class Gradebook:
    """One course's database, opened (and brought to the current schema) for reading and
    writing; use as a context manager, or `close()`."""

    def __init__(self, path: Path, migrations: Sequence[Callable[[sqlite3.Connection], None]]
                 = MIGRATIONS) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self.db = sqlite3.connect(path, isolation_level=None, timeout=30.0)
        except (OSError, sqlite3.Error) as error:
            raise GradesError(f"{path}: cannot open the gradebook: {error}") from None
        try:
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self._migrate(migrations)
        except sqlite3.DatabaseError as error:
            self.db.close()
            raise GradesError(f"{path}: not a RouterLab gradebook ({error})") from None
        except GradesError:
            self.db.close()
            raise

    @classmethod
    def of_course(cls, course_id: str) -> Gradebook:
        return cls(db_path(course_id))

    def __enter__(self) -> Gradebook:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    @property
    def version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self, migrations: Sequence[Callable[[sqlite3.Connection], None]]) -> None:
        found = self.version
        if found > len(migrations):
            raise GradesError(f"{self.path}: a gradebook of schema {found}, written by a newer "
                              f"RouterLab (this one reads up to {len(migrations)}); upgrade "
                              "RouterLab, nothing was changed")
        if found == len(migrations):
            return
        with self.write():
            for migration in migrations[found:]:
                migration(self.db)
            self.db.execute(f"PRAGMA user_version = {len(migrations)}")

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One transaction: all of it is kept, or (an error, a kill) none of it."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise GradesError(f"{self.path}: cannot write the gradebook: {error}") from None
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error as error:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise GradesError(f"{self.path}: cannot write the gradebook: {error}") from None

    def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        return list(self.db.execute(sql, args).fetchall())

    # -- the roster ----------------------------------------------------------------------

    def set_roster(self, students: Sequence[StudentRow]) -> None:
        """The roster as given (a roster again updates each student's details; nobody is
        dropped: their record stays)."""
        with self.write() as db:
            start = db.execute("SELECT COALESCE(MAX(position), -1) + 1 FROM students").fetchone()[0]
            for index, s in enumerate(students):
                db.execute("INSERT INTO students VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO "
                           "UPDATE SET name=excluded.name, email=excluded.email, "
                           "section=excluded.section, lms_id=excluded.lms_id",
                           (s.id, s.name, s.email, s.section, s.lms_id, start + index))

    def students(self) -> list[StudentRow]:
        return [StudentRow(*r) for r in self.rows(
            "SELECT id, name, email, section, lms_id FROM students ORDER BY position")]

    def student(self, student_id: str) -> StudentRow:
        found = self.rows("SELECT id, name, email, section, lms_id FROM students WHERE id = ?",
                          student_id)
        if not found:
            raise GradesError(f"{student_id!r} is not a student of this course's gradebook "
                              f"({self.path}); its roster comes from `teacher release --roster` "
                              "or `teacher recheck --roster`")
        return StudentRow(*found[0])

    # -- assignments ---------------------------------------------------------------------

    def set_assignment(self, assignment_id: str, exercises: Sequence[str], opens: str, due: str,
                       policy: dict[str, Any]) -> None:
        with self.write() as db:
            position = db.execute("SELECT COALESCE(MAX(position), -1) + 1 FROM assignments"
                                  ).fetchone()[0]
            db.execute("INSERT INTO assignments (id, opens, due, position, policy) "
                       "VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET opens=excluded.opens, "
                       "due=excluded.due, policy=excluded.policy",
                       (assignment_id, opens, due, position, json.dumps(policy)))
            db.execute("DELETE FROM assignment_exercises WHERE assignment = ?", (assignment_id,))
            db.executemany("INSERT INTO assignment_exercises VALUES (?, ?, ?)",
                           [(assignment_id, e, i) for i, e in enumerate(exercises)])

    def assignment_ids(self) -> list[str]:
        return [r[0] for r in self.rows("SELECT id FROM assignments ORDER BY position")]

    def check_assignment(self, assignment_id: str) -> None:
        if not self.rows("SELECT 1 FROM assignments WHERE id = ?", assignment_id):
            known = ", ".join(self.assignment_ids()) or "none yet: `teacher assignment` sets one"
            raise GradesError(f"{assignment_id!r} is not an assignment of this course "
                              f"(assignments: {known})")

    # -- what happened -------------------------------------------------------------------

    def add_collection(self, student: str, hub: str, server_state: str,
                       files: dict[str, tuple[str, str]], at: str | None = None) -> int:
        """One student's collection (path → (sha256, the hub's modified time)), appended."""
        with self.write() as db:
            cursor = db.execute("INSERT INTO collections (student, at, hub, server_state) "
                                "VALUES (?, ?, ?, ?)", (student, at or now(), hub, server_state))
            number = int(cursor.lastrowid or 0)
            db.executemany("INSERT INTO collection_files VALUES (?, ?, ?, ?)",
                           [(number, p, sha, when) for p, (sha, when) in sorted(files.items())])
        return number

    def add_run(self, routerlab: str, catalog_version: str, possible: dict[str, int],
                students: Sequence[tuple[str, bool, str, dict[str, tuple[float, str]]]]) -> int:
        """A grading run: `possible` (exercise → points, in catalog order) and each student's
        (id, graded, status, exercise → (points, file)), all in one transaction."""
        with self.write() as db:
            cursor = db.execute("INSERT INTO runs (at, routerlab, catalog_version, exercises, "
                                "possible) VALUES (?, ?, ?, ?, ?)",
                                (now(), routerlab, catalog_version, json.dumps(list(possible)),
                                 json.dumps(possible)))
            run = int(cursor.lastrowid or 0)
            for sid, graded, status, points in students:
                db.execute("INSERT INTO run_students VALUES (?, ?, ?, ?)",
                           (run, sid, int(graded), status))
                db.executemany("INSERT INTO run_points VALUES (?, ?, ?, ?, ?)",
                               [(run, sid, e, p, f) for e, (p, f) in points.items()])
        return run

    def add_override(self, student: str, exercise: str, old: float | None, new: float,
                     reason: str) -> None:
        with self.write() as db:
            db.execute("INSERT INTO overrides (student, exercise, old, new, reason, who, at) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", (student, exercise, old, new, reason,
                                                        who(), now()))

    def add_extension(self, student: str, assignment: str, due: str) -> None:
        with self.write() as db:
            db.execute("INSERT INTO extensions (student, assignment, due, who, at) "
                       "VALUES (?, ?, ?, ?, ?)", (student, assignment, due, who(), now()))
