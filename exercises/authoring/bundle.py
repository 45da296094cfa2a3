"""Class mode: a course bundle that holds no answers, and the solutions a teacher gives out later.

nbgrader's design, for RouterLab's exercises: the teacher's catalog (sealed solutions, digests of
the answers) is the *source*; `teacher release OUT` writes the *release* a class gets; students
work in class workspaces made from it (`exercises init WS --course OUT --student-id ID`); the
teacher grades the handed-in files against the source in the jail; and
`teacher release-solutions` gives the worked solutions out afterwards.

A bundle is a catalog folder (`index.toml`, one folder per exercise), so `load_catalog` reads it
as it reads the installed one, plus `course.toml` (the course's id and version). Per exercise it
holds `exercise.toml`, `statement.md`, `starter.py` and `visible.json`: each visible check's
name, hint level and the model's results on that check's inputs (the labelled data the student's
results are compared with). It holds no `sealed.json`: no solution, no digest of any answer (a
digest of a four-way choice *is* the answer), no result of a hidden check. A class workspace
therefore runs its visible checks from this data alone, and says that the hidden ones run when
the teacher grades.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ... import __version__
from ...core.base.safe_io import load_json, load_toml, shorten
from ..catalog import Catalog, Exercise, load_catalog, read_entry
from ..errors import CatalogError, WorkspaceError
from ..files import check_target, os_errors, write_text

COURSE_FILE = "course.toml"
BUNDLE_FORMAT = 1
"""The `format` of `course.toml` this RouterLab writes and reads; any other is refused."""
VISIBLE_FILE = "visible.json"
SOLUTIONS_FORMAT = "routerlab-solutions"
CLASS_HINTS = 2
"""Hint levels a release ships by default: the nudge and the concept. The third ("near
solution") is often the answer itself, so a class gets it only when the teacher says so."""
_SHIPPED = ("statement.md", "starter.py")


@dataclass(frozen=True)
class CourseInfo:
    """What identifies a release: the workspace records it, and grading matches it."""

    id: str
    version: str
    """A digest of the bundle's content: two releases of the same catalog have the same one."""
    title: str
    released: str
    routerlab: str
    hints: int
    secret_fingerprint: str = ""
    """The course secret's fingerprint (`authoring.secret`): grading refuses another secret."""
    variants: bool = False
    """Each student has their own variant (`variants.json`, `variants.table`)."""


def release(catalog: Catalog, out: Path, course_id: str, title: str = "",
            hints: int = CLASS_HINTS, roster: list[str] | None = None) -> CourseInfo:
    """Write the course bundle of `catalog` to `out` (a new folder), all or nothing: it is
    made in a hidden folder beside `out` and renamed into place once complete. The course's
    secret is made (or kept) in the teacher's data folder; with `roster` (student ids), each of
    those students gets their own variant of every exercise that varies, found by the tag the
    teacher hands them (`tags.csv` beside the secret, `authoring.tags`)."""
    from ..engine import judge
    from ..variants.table import write_table
    from .secret import ensure_secret
    from .tags import write_tags

    _check_id(course_id, "course id", CatalogError)
    if not 0 <= hints <= 3:
        raise CatalogError(f"--hints {hints}: give 0 to 3 hint levels")
    with os_errors("write the course bundle", CatalogError):
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise CatalogError(f"{out} exists and is not an empty folder; choose a new one")
        if not out.parent.is_dir():
            raise CatalogError(f"{out}: cannot write the course bundle: the folder {out.parent} "
                               "does not exist (or is not a folder)")
    broken = [f"{e.id}: {'; '.join(judge.expected(e.id, e.catalog).problems)}"
              for e in catalog if judge.expected(e.id, e.catalog).problems]
    if broken:
        raise CatalogError("the catalog is not sealed for this RouterLab (run `routerlab teacher "
                           "lint`): " + " | ".join(broken))
    secret = ensure_secret(course_id, roster is not None, out)
    with os_errors("write the course bundle", CatalogError):
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        with os_errors("write the course bundle", CatalogError):
            _write(staging / "index.toml", _toml({"order": [e.id for e in catalog]}))
            for exercise in catalog:
                _write_exercise(staging / exercise.id, exercise, hints, roster is not None)
            if roster is not None:
                write_table(staging, catalog, course_id, secret.key, roster)
            info = CourseInfo(course_id, _digest(staging), title or course_id,
                              datetime.now(UTC).isoformat(timespec="seconds"), __version__, hints,
                              secret.fingerprint, roster is not None)
            _write(staging / COURSE_FILE, _toml({"format": BUNDLE_FORMAT, **asdict(info)}))
            if out.exists():
                out.rmdir()
            os.replace(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if roster is not None:  # each student's tag, for the teacher to hand out: never the bundle
        write_tags(course_id, secret.key, roster)
    return info


def _write_exercise(folder: Path, exercise: Exercise, hints: int, variants: bool) -> None:
    """One exercise as a class gets it: what the student reads (the templates of its statement
    and starter, with its parameters' declaration), and the visible checks' data: none for an
    exercise that varies, whose student's own visible results their machine computes."""
    from ..checks import suite_for
    from ..checks.base import PredictSuite
    from ..engine import judge

    folder.mkdir()
    _write(folder / "exercise.toml", _toml(_public(exercise, hints)))
    for name in _SHIPPED:
        _write(folder / name, read_entry(exercise.folder / name))
    suite = suite_for(exercise)
    want = judge.expected(exercise.id, exercise.catalog).observations
    checks = [{"name": c.name, "hint": c.hint,
               "expected": None if isinstance(suite, PredictSuite)
               or (variants and exercise.variant.varies)
               else [list(pair) for pair in want[c.name]]}
              for c in suite.checks if not c.hidden]
    _write(folder / VISIBLE_FILE, _lines(checks))


def read_course(folder: Path, error: type[CatalogError] | type[WorkspaceError] = CatalogError,
                ) -> CourseInfo:
    """The `course.toml` of a bundle, validated; `error` names the folder when it is none."""
    if not (folder / COURSE_FILE).is_file():
        raise error(f"{folder} is not a course bundle (no {COURSE_FILE}); your teacher makes one "
                    "with `routerlab teacher release OUT`")
    _refuse_links(folder, error)
    meta = load_toml(folder / COURSE_FILE, what="course file", error=error)
    if meta.get("format") != BUNDLE_FORMAT:
        raise error(f"{folder / COURSE_FILE}: bundle format {shorten(repr(meta.get('format')))}; "
                    f"this RouterLab reads format {BUNDLE_FORMAT} (release it again with this "
                    "RouterLab's `routerlab teacher release`)")
    try:
        info = CourseInfo(str(meta["id"]), str(meta["version"]), str(meta["title"]),
                          str(meta["released"]), str(meta["routerlab"]), int(meta["hints"]),
                          str(meta.get("secret_fingerprint", "")),
                          bool(meta.get("variants", False)))
    except (KeyError, TypeError, ValueError) as problem:
        raise error(f"{folder / COURSE_FILE} is malformed ({problem!r})") from None
    _check_id(info.id, f"{folder / COURSE_FILE}: course id", error)
    return info


def _refuse_links(folder: Path, error: type[CatalogError] | type[WorkspaceError]) -> None:
    """A bundle is plain files and folders: a link in it (a starter linked to /etc/shadow)
    would make `init` copy whatever it points at into a workspace."""
    if folder.is_symlink():
        raise error(f"{folder}: the course bundle is a link; give the folder itself")
    with os_errors("read the course bundle", error):
        for parent, dirs, names in os.walk(folder):
            for name in dirs + names:
                path = Path(parent) / name
                if path.is_symlink():
                    raise error(f"{path}: a link in a course bundle is refused (a bundle holds "
                                "only plain files and folders)")


def open_bundle(folder: Path, error: type[CatalogError] | type[WorkspaceError] = CatalogError,
                ) -> tuple[CourseInfo, Catalog]:
    """A bundle's course and catalog; every exercise must be one this RouterLab can check."""
    from ..checks import suite_for

    info = read_course(folder, error)
    try:
        catalog = load_catalog(str(folder.resolve()))
        for exercise in catalog:  # everything a workspace will read, read once here
            suite_for(exercise)
            visible_expected(exercise)
            exercise.starter()
    except CatalogError as problem:
        raise error(f"{folder}: {problem} (was it released by another RouterLab version? it says "
                    f"{info.routerlab})") from None
    return info, catalog


def visible_expected(exercise: Exercise) -> Any:
    """What a class workspace judges with: the bundle's results of each visible check, and the
    hidden checks named as run at grading (`judge.Expected`)."""
    from ..checks import suite_for
    from ..checks.base import PredictSuite
    from ..engine import judge

    data = load_json(Path(str(exercise.folder)) / VISIBLE_FILE, what="course bundle file",
                     error=CatalogError)
    suite = suite_for(exercise)
    try:
        given = {str(c["name"]): c.get("expected") for c in data["checks"]}
    except (KeyError, TypeError, AttributeError) as problem:
        raise CatalogError(f"{exercise.id}/{VISIBLE_FILE} is malformed ({problem!r})") from None
    visible = [c.name for c in suite.checks if not c.hidden]
    if sorted(given) != sorted(visible):
        raise CatalogError(f"{exercise.id}: the bundle's visible checks are not this "
                           "RouterLab's")
    observations = {}
    if not isinstance(suite, PredictSuite) and exercise.variant.varies and all(
            given[name] is None for name in visible):  # the student's own inputs: their model's
        observations = judge.model_observations(suite, exercise.variant_params(),
                                                frozenset(visible))
    elif not isinstance(suite, PredictSuite):  # a predict suite's one visible check needs none
        for name in visible:
            pairs = given[name]
            if not isinstance(pairs, list) or not all(
                    isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in pairs):
                raise CatalogError(f"{exercise.id}/{VISIBLE_FILE}: “{name}” is malformed")
            observations[name] = [(p[0], p[1]) for p in pairs]
    hidden = frozenset(c.name for c in suite.checks if c.hidden)
    return judge.Expected(observations, {}, (), at_grading=hidden)


# --- solutions, given out after grading ---------------------------------------------------

@dataclass(frozen=True)
class Released:
    """One exercise's solution as the teacher gave it out."""

    solution: str
    answers: dict[str, Any]


def release_solutions(catalog: Catalog, out: Path, course_id: str,
                      only: list[str] | None = None,
                      variants: dict[str, dict[str, dict[str, Any]]] | None = None) -> list[str]:
    """Write the worked solutions (and a predict exercise's answers) a class workspace imports;
    the ids written. `variants` (student id -> their variants, a course that gave variants):
    each of those students gets a file of their own in `students_folder(out)`, `ID.json`,
    holding their own variant's answers and no one else's (the teacher hands each student
    theirs, as an LMS hands back a graded paper); `out` then holds the catalog variant's only.
    All of it is written, or none."""
    from .sealing import open_solution

    _check_id(course_id, "course id", CatalogError)
    check_target(out, "solutions file", CatalogError)  # refused before any solution is opened
    for student_id in variants or {}:
        _check_id(student_id, "student id", CatalogError)
    chosen = [catalog.get(i) for i in only] if only else list(catalog)
    entries = {e.id: _released_entry(e, open_solution(e)) for e in chosen}
    students = {sid: {e.id: _released_entry(e.with_params(own[e.id]), entries[e.id].solution)
                      if e.id in own else entries[e.id] for e in chosen}
                for sid, own in (variants or {}).items()}
    if students:
        _write_students(students_folder(out), course_id, students)
    write_solutions(out, course_id, entries, CatalogError)
    return list(entries)


def students_folder(out: Path) -> Path:
    """Where `release_solutions` writes each student's own file: `solutions.json` ->
    `solutions.students/`."""
    return out.with_name(f"{out.stem}.students")


def _write_students(folder: Path, course_id: str, students: dict[str, dict[str, Released]]
                    ) -> None:
    """One file per student, readable by the teacher alone until handed out, made in a hidden
    folder and renamed into place (a release again replaces the folder whole)."""
    with os_errors("write the students' solutions", CatalogError):
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            raise CatalogError(f"{folder} exists and is not a folder of students' solutions")
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        with os_errors("write the students' solutions", CatalogError):
            for student_id, own in sorted(students.items()):
                path = staging / f"{student_id}.json"
                write_solutions(path, course_id, own, CatalogError, student_id)
                path.chmod(0o600)
            old = folder.with_name(f".{folder.name}.old.{os.getpid()}")
            if folder.exists():
                os.replace(folder, old)
            os.replace(staging, folder)
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _released_entry(exercise: Exercise, worked: str) -> Released:
    """One exercise as released: a predict exercise's answers for this copy's variant (the
    worked solution, the catalog's own variant's, follows them as the reasoning)."""
    from ..checks import suite_for
    from ..checks.base import PredictSuite, to_data

    suite = suite_for(exercise)
    if not isinstance(suite, PredictSuite):
        return Released(worked, {})
    answers = {k: to_data(v) for k, v in suite.answers(exercise.variant_params()).items()}
    if not exercise.params:
        return Released(worked, answers)
    lines = [f"# Your variant: {exercise.variant_params()}"]
    lines += [f"{name} = {value!r}" for name, value in answers.items()]
    lines += ["", "# The worked solution of the catalog's own variant (other numbers, the same "
              "reasoning):"]
    lines += [f"# {line}" if line else "#" for line in worked.splitlines()]
    return Released("\n".join(lines) + "\n", answers)


def write_solutions(path: Path, course_id: str, entries: dict[str, Released],
                    error: type[CatalogError] | type[WorkspaceError] = WorkspaceError,
                    student_id: str | None = None) -> Path:
    """A solutions file (`read_solutions` reads it back), written whole or not at all; with
    `student_id`, one student's own file (no other student may import it)."""
    document = {"format": SOLUTIONS_FORMAT, "course": course_id,
                **({"student": student_id} if student_id is not None else {}),
                "exercises": {k: {"solution": v.solution, "answers": v.answers}
                              for k, v in sorted(entries.items())}}
    return write_text(path, json.dumps(document, indent=1) + "\n", "solutions file", error)


def read_solutions(path: Path, course_id: str, student_id: str | None = None
                   ) -> dict[str, Released]:
    """A solutions file, validated for the course `course_id`, and, when it is one student's
    own (`student`), for the student `student_id`."""
    data = load_json(path, what="solutions file", error=WorkspaceError)
    if not isinstance(data, dict) or data.get("format") != SOLUTIONS_FORMAT:
        raise WorkspaceError(f"{path} is not a solutions file (`routerlab teacher "
                             "release-solutions` writes one)")
    if data.get("course") != course_id:
        raise WorkspaceError(f"{path} holds the solutions of the course {data.get('course')!r}; "
                             f"this workspace belongs to {course_id!r}")
    owner = data.get("student")
    if owner is not None and owner != student_id:
        raise WorkspaceError(f"{path} holds another student's solutions; import your own "
                             "file (your teacher hands each student theirs)")
    found: dict[str, Released] = {}
    entries = data.get("exercises")
    if not isinstance(entries, dict):
        raise WorkspaceError(f"{path}: no 'exercises' object")
    for exercise_id, entry in entries.items():
        if not (isinstance(entry, dict) and isinstance(entry.get("solution"), str)
                and isinstance(entry.get("answers"), dict)):
            raise WorkspaceError(f"{path}: the entry of {exercise_id!r} is malformed")
        found[str(exercise_id)] = Released(entry["solution"], dict(entry["answers"]))
    return found


# --- helpers -------------------------------------------------------------------------------

_ID_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@+")


def _check_id(value: str, what: str, error: type[Exception]) -> None:
    """Ids name folders (`submitted/<id>/`) and CSV rows: letters, digits and `._-@+` only."""
    if not value or len(value) > 64 or not set(value) <= _ID_CHARS or value[0] in ".-":
        raise error(f"{what} {value!r}: use 1 to 64 letters, digits or . _ - @ + (not starting "
                    "with . or -)")


def check_course_id(value: str) -> str:
    """A course id as a teacher names it: the student id rule (it names a folder of the
    teacher's data folder, so no `/`, no `..`, nothing absolute)."""
    _check_id(value, "course id", CatalogError)
    return value


def check_student_id(value: str) -> str:
    _check_id(value, "student id", WorkspaceError)
    return value


def _public(exercise: Exercise, hints: int) -> dict[str, Any]:
    """An exercise's `exercise.toml` as a class gets it: its hints cut to `hints` levels."""
    return {"id": exercise.id, "title": exercise.title, "concept": exercise.concept,
            "kind": exercise.kind.value, "points": exercise.points, "checks": exercise.checks,
            "timeout": exercise.timeout, "reference": exercise.reference,
            "hints": list(exercise.hint_templates[:hints]), "notebook": exercise.notebook,
            "tolerance": {"rel": exercise.tolerance.rel, "abs": exercise.tolerance.abs},
            "delegation": list(exercise.delegation), "partial_credit": exercise.partial_credit,
            **({"variant": _variant_table(exercise)} if exercise.variant.params
               or exercise.variant.fixed else {})}


def _variant_table(exercise: Exercise) -> dict[str, Any]:
    """The `[variant]` table again: which parameters exist and their ranges (not who got
    which: that is `variants.json`'s)."""
    spec = exercise.variant
    if spec.fixed:
        return {"fixed": spec.fixed}
    return {"params": {p.name: {"choices": list(p.choices), "default": p.default}
                       for p in spec.params}}


def _digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _lines(checks: list[dict[str, Any]]) -> str:
    """`{"checks": [...]}` with one check per line, compact (what a grep of the bundle sees)."""
    rows = ",\n".join(json.dumps(c, separators=(",", ":"), ensure_ascii=False) for c in checks)
    return '{"checks": [\n' + rows + "\n]}\n"


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _toml(data: dict[str, Any]) -> str:
    """TOML for the flat tables this module writes (strings, numbers, booleans, lists, one
    level of inline tables)."""
    return "".join(f"{key} = {_toml_value(value)}\n" for key, value in data.items())


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + "".join(_toml_char(c) for c in value) + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {type(value).__name__}")


def _toml_char(char: str) -> str:
    escapes = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    if char in escapes:
        return escapes[char]
    return f"\\u{ord(char):04x}" if ord(char) < 0x20 or ord(char) == 0x7F else char
