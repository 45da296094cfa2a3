"""Authoring: seal an exercise's worked solution so that no plain answer and no solution ships.

The author writes the solution file anywhere outside the catalog and runs
`routerlab teacher seal ID FILE --catalog COURSE`: it seals into a course folder the teacher names
(a new one starts as a copy of the installed catalog), never into the installed package.

- Predict: the answers in the file are read with `ast.literal_eval` (the file is never
  executed) and compared with what the model computes (`PredictSuite.oracle`); the answer
  digests and the encrypted solution make `sealed.json`.
- Implement: every probe runs on the model; the digest of each check's results and the solution
  encrypted under the key those results give (`judge.implement_key`) make `sealed.json`.

Either way the new `sealed.json` is first written into a temporary copy of the course, where the
solution is graded in the sandbox like a student's (it must pass) and each wrong submission must
be rejected by the hidden checks it names; only then is it written into the course folder, in
one rename. The plain file can then be deleted: `open_solution` (used by `teacher lint`)
re-derives the key from the model whenever the solution must be opened. Every file to seal is
read as a user's file (`routerlab.core.base.safe_io`) and parsed first: one that is not valid Python
is refused with its name and line, before anything is written.
"""

from __future__ import annotations

import ast
import json
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.base.safe_io import read_text
from ..answers import SealFormatError, canonical, seal, unlock_key, unseal
from ..catalog import Exercise, WrongSubmission, catalog_root, load_catalog
from ..checks import suite_for
from ..checks.base import CheckFailure, PredictSuite
from ..engine import judge
from ..engine.runner import Candidate, run_checks
from ..errors import CatalogError
from ..files import os_errors, write_text

if TYPE_CHECKING:
    from ..engine.jail import Jail


def seal_into(course: Path, exercise_id: str, solution_file: Path,
              wrong_files: list[Path] | None = None) -> Path:
    """Seal `exercise_id` of the course folder `course` from a solution file (and wrong
    submissions): checked in a temporary copy of the course, then written in one rename.

    Nothing is written until the copy, sealed, grades the solution as a pass and rejects each
    wrong submission with the hidden checks it names, so a `check` running meanwhile never sees
    a half-made seal. A `course` that does not exist yet starts as a copy of the installed
    catalog; the installed catalog itself is never written.
    """
    text = read_python(solution_file, "solution file")
    entries = wrong_entries(list(wrong_files or []))  # every file refused before any work
    course = _course_folder(course)
    with tempfile.TemporaryDirectory(prefix="routerlab-seal-") as scratch:
        copy = Path(scratch) / "catalog"
        with os_errors("copy the course folder", CatalogError):
            shutil.copytree(course if course.exists() else Path(str(catalog_root())), copy)
        exercise = load_catalog(str(copy)).get(exercise_id)
        document, key = _sealed(exercise, solution_file, text)
        if entries:
            document["wrong"] = seal(json.dumps(entries), key)
        sealed_path = Path(str(exercise.folder)) / "sealed.json"
        write_text(sealed_path, json.dumps(document, indent=2) + "\n", "sealed file",
                   CatalogError)
        _prove(exercise, solution_file)
        if not course.exists():
            with os_errors("create the course folder", CatalogError):
                shutil.copytree(copy, course)
        else:
            write_text(course / exercise.id / "sealed.json", sealed_path.read_text("utf-8"),
                       "sealed file", CatalogError)
    judge.expected.cache_clear()
    return course / exercise.id / "sealed.json"


def _course_folder(course: Path) -> Path:
    """The course folder to write, refused when it is the installed package's catalog (an
    editable install's is the checkout: it changes only in a commit, copied from a course)."""
    course = course.expanduser().resolve()
    installed = Path(str(catalog_root())).resolve()
    if course == installed or installed in course.parents:
        raise CatalogError(f"{course} is the catalog inside the installed RouterLab; seal into a "
                           "course folder of your own (`--catalog DIR`; a new one starts as a "
                           "copy of the installed catalog)")
    if course.exists() and not (course / "index.toml").is_file():
        raise CatalogError(f"{course} is not a course folder (no index.toml); name a new folder "
                           "to start one from the installed catalog")
    return course


def _sealed(exercise: Exercise, solution_file: Path, text: str) -> tuple[dict[str, Any], str]:
    """The `sealed.json` document of a solution the model agrees with, and its key (the one a
    passing submission gives); the wrong submissions sealed before are kept."""
    suite = suite_for(exercise)
    old = exercise.sealed()
    kept = {"wrong": old.wrong} if old and old.wrong else {}
    if not isinstance(suite, PredictSuite):
        observations = judge.model_observations(suite, exercise.variant.defaults())
        digests = {name: judge.check_digest(exercise.id, name, obs)
                   for name, obs in observations.items()}
        key = judge.implement_key(exercise.id, observations)
        return {"digests": digests, "solution": seal(text, key), **kept}, key
    written = literal_assignments(text)
    model = suite.oracle()
    wrong = []
    for part in suite.parts:
        if part.name not in written:
            raise CatalogError(f"{solution_file} has no `{part.name} = ...` line")
        try:
            mine = canonical(part.form(written[part.name]), part.places)
        except CheckFailure as failure:  # the answer's shape, as a student would be told
            raise CatalogError(f"{solution_file}: {part.name}: {failure.message}; nothing was "
                               "sealed") from None
        theirs = canonical(part.form(model[part.name]), part.places)
        if mine != theirs:
            wrong.append(f"{part.name}: file says {mine}, the model computes {theirs}")
    if wrong:
        raise CatalogError("the solution disagrees with the model: " + "; ".join(wrong))
    key = unlock_key(exercise.id, suite.canonical_answers(model))
    return {"digests": suite.digests(model), "solution": seal(text, key), **kept}, key


def _prove(exercise: Exercise, solution_file: Path) -> None:
    """Grade the solution, and each sealed wrong submission, against the sealed copy as a
    student's check would; CatalogError (nothing sealed) when either is not as it must be."""
    report = run_checks(exercise, Candidate(solution_file, "solution"))
    if not report.passed:
        failing = [f"{o.name}: {o.message}" for o in report.failures]
        raise CatalogError(f"{solution_file} does not pass {exercise.id}: {failing}; nothing "
                           "was sealed")
    try:
        wrong = open_wrong(exercise)
    except ValueError:  # kept from the last seal, under a key the changed checks no longer give
        raise CatalogError(f"{exercise.id}: its sealed wrong submissions no longer open (the "
                           "checks changed since they were sealed); seal again with every wrong "
                           "submission: --wrong FILE ...; nothing was sealed") from None
    with tempfile.TemporaryDirectory(prefix="routerlab-seal-wrong-") as scratch:
        problems = wrong_problems(exercise, wrong, Path(scratch))
    if problems:
        raise CatalogError(f"{exercise.id}: {'; '.join(problems)}; nothing was sealed")


def read_python(path: Path, what: str) -> str:
    """A file to seal, as text that parses as Python; `CatalogError` names the file and line."""
    text = read_text(path, what=what, error=CatalogError)
    try:
        ast.parse(text, filename=str(path))
    except SyntaxError as error:
        where = f"{path}:{error.lineno}" if error.lineno else str(path)
        raise CatalogError(f"{where}: not valid Python: {error.msg}; nothing was sealed") from None
    except (ValueError, RecursionError, MemoryError):  # a NUL byte; nesting past the parser's
        raise CatalogError(f"{path}: not valid Python: it holds a NUL byte or nests too deeply "
                           "for Python's parser; nothing was sealed") from None
    return text


def literal_assignments(source: str) -> dict[str, Any]:
    """Top-level `NAME = <literal>` lines of a Python file, without running it."""
    values = {}
    for node in ast.parse(source).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except (ValueError, TypeError, RecursionError):  # not a literal: not an answer
                continue
    return values


def model_key(exercise: Exercise) -> str:
    """The key a passing submission gives, derived here from the model's own answers."""
    suite = suite_for(exercise)
    if isinstance(suite, PredictSuite):
        return unlock_key(exercise.id, suite.canonical_answers(suite.oracle()))
    return judge.implement_key(exercise.id,
                               judge.expected(exercise.id, exercise.catalog).observations)


def open_solution(exercise: Exercise) -> str:
    """The worked solution, opened with the key the model's own answers give (teacher side)."""
    sealed = exercise.sealed()
    if sealed is None:
        raise CatalogError(f"{exercise.id} has no sealed.json (run `routerlab teacher seal`)")
    return _opened(exercise, sealed.solution)


def _opened(exercise: Exercise, blob: str) -> str:
    """A sealed blob of `exercise` opened with the model's key; an old-format blob is one clear
    line (`CatalogError`), not a wrong key."""
    try:
        return unseal(blob, model_key(exercise))
    except SealFormatError as error:
        raise CatalogError(f"{exercise.id}: {error}") from None


def open_wrong(exercise: Exercise) -> list[WrongSubmission]:
    """The sealed wrong submissions, opened like the solution."""
    sealed = exercise.sealed()
    if sealed is None or not sealed.wrong:
        return []
    entries = json.loads(_opened(exercise, sealed.wrong))
    return [WrongSubmission(e["name"], tuple(e["rejects"]), e["source"]) for e in entries]


def wrong_entries(files: list[Path]) -> list[dict[str, Any]]:
    """Read wrong submissions to seal: each names, on `# rejects: CHECK` lines, the hidden
    checks that must fail on it. Read (and refused) before anything is sealed."""
    entries = []
    for path in files:
        source = read_python(path, "wrong submission")
        rejects = [line.split(":", 1)[1].strip() for line in source.splitlines()
                   if line.startswith("# rejects:")]
        if not rejects:
            raise CatalogError(f"{path} has no `# rejects: CHECK NAME` line")
        entries.append({"name": path.name, "rejects": rejects, "source": source})
    return entries


def wrong_problems(exercise: Exercise, wrong: list[WrongSubmission], folder: Path,
                   jail: Jail | None = None) -> list[str]:
    """Each wrong submission, run in `jail` (else a jail or sandbox of its own), must fail every
    hidden check it names."""
    hidden = {c.name for c in suite_for(exercise).checks if c.hidden}
    problems = []
    for index, submission in enumerate(wrong):
        path = scratch_file(folder / f"wrong_{index}.py", submission.source)
        report = run_checks(exercise, Candidate(path, submission.name), jail=jail)
        failed = {o.name for o in report.outcomes if not o.ok}
        for name in submission.rejects:
            if name not in hidden:
                problems.append(f"wrong submission {submission.name} names “{name}”, which is "
                                "not a hidden check")
            elif name not in failed or report.problem is not None:
                problems.append(f"the hidden check “{name}” accepts the wrong submission "
                                f"{submission.name}: it no longer checks what it says")
    return problems


def scratch_file(path: Path, text: str) -> Path:
    """A file for one sandboxed run (a starter, a solution, a wrong submission)."""
    path.write_text(text, encoding="utf-8")
    return path
