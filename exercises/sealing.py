"""Authoring: seal an exercise's worked solution so that no plain answer and no solution ships.

The author writes the solution file anywhere outside the catalog and runs
`routerlab teacher seal ID FILE`.

- Predict: the answers in the file are read with `ast.literal_eval` (the file is never
  executed), compared with what the model computes (`PredictSuite.oracle`), and only then are the
  answer digests and the encrypted solution written to `catalog/ID/sealed.json`.
- Implement: every probe runs on the model; the digest of each check's results and the solution
  encrypted under the key those results give (`judge.implement_key`) are written, and the file is
  then graded in the sandbox like a student's: it must pass, or nothing is kept.

The plain file can then be deleted: `open_solution` (used by `teacher lint`) re-derives the key
from the model whenever the solution must be opened. Every file to seal is read as a user's
file (`routerlab.core.safe_io`) and parsed first: one that is not valid Python is refused with
its name and line, before anything is written.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from ..core.safe_io import read_text
from .answers import canonical, seal, unlock_key, unseal
from .catalog import Exercise, WrongSubmission
from .checks import suite_for
from .checks.base import CheckFailure, PredictSuite
from .errors import CatalogError
from .files import os_errors, write_text


def seal_exercise(exercise: Exercise, solution_file: Path) -> Path:
    """Write `sealed.json` from a solution file the model agrees with (or that passes)."""
    suite = suite_for(exercise)
    text = read_python(solution_file, "solution file")
    if not isinstance(suite, PredictSuite):
        return _seal_implement(exercise, solution_file, text)
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
    target = Path(str(exercise.folder)) / "sealed.json"
    old = exercise.sealed()
    return write_text(target, json.dumps(
        {"digests": suite.digests(model), "solution": seal(text, key),
         **({"wrong": old.wrong} if old and old.wrong else {})}, indent=2) + "\n",
        "sealed file", CatalogError)


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


def _seal_implement(exercise: Exercise, solution_file: Path, text: str) -> Path:
    from . import judge
    from .catalog import load_catalog
    from .runner import Candidate, run_checks

    suite = suite_for(exercise)
    observations = judge.model_observations(suite)
    digests = {name: judge.check_digest(exercise.id, name, obs)
               for name, obs in observations.items()}
    key = judge.implement_key(exercise.id, observations)
    target = Path(str(exercise.folder)) / "sealed.json"
    with os_errors("read the sealed file", CatalogError):
        before = target.read_text(encoding="utf-8") if target.exists() else None
    old = exercise.sealed()
    write_text(target, json.dumps({"digests": digests, "solution": seal(text, key),
                                   **({"wrong": old.wrong} if old and old.wrong else {})},
                                  indent=2) + "\n", "sealed file", CatalogError)
    judge.expected.cache_clear()
    report = run_checks(load_catalog().get(exercise.id), Candidate(solution_file, "solution"))
    if not report.passed:
        with os_errors("restore the sealed file", CatalogError):
            if before is None:
                target.unlink()
            else:
                target.write_text(before, encoding="utf-8")
        judge.expected.cache_clear()
        failing = [o.name for o in report.failures]
        raise CatalogError(f"{solution_file} does not pass {exercise.id}: {failing}; "
                           "nothing was sealed")
    return target


def model_key(exercise: Exercise) -> str:
    """The key a passing submission gives, derived here from the model's own answers."""
    from . import judge

    suite = suite_for(exercise)
    if isinstance(suite, PredictSuite):
        return unlock_key(exercise.id, suite.canonical_answers(suite.oracle()))
    return judge.implement_key(exercise.id, judge.expected(exercise.id).observations)


def open_solution(exercise: Exercise) -> str:
    """The worked solution, opened with the key the model's own answers give (teacher side)."""
    sealed = exercise.sealed()
    if sealed is None:
        raise CatalogError(f"{exercise.id} has no sealed.json (run `routerlab teacher seal`)")
    return unseal(sealed.solution, model_key(exercise))


def open_wrong(exercise: Exercise) -> list[WrongSubmission]:
    """The sealed wrong submissions, opened like the solution."""
    sealed = exercise.sealed()
    if sealed is None or not sealed.wrong:
        return []
    entries = json.loads(unseal(sealed.wrong, model_key(exercise)))
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


def seal_wrong(exercise: Exercise, entries: list[dict[str, Any]]) -> Path:
    """Seal wrong submissions (`wrong_entries`) into `sealed.json`; `teacher lint` runs them
    all."""
    sealed = exercise.sealed()
    if sealed is None:
        raise CatalogError(f"seal {exercise.id}'s solution first")
    target = Path(str(exercise.folder)) / "sealed.json"
    return write_text(target, json.dumps(
        {"digests": sealed.digests, "solution": sealed.solution,
         "wrong": seal(json.dumps(entries), model_key(exercise))}, indent=2) + "\n",
        "sealed file", CatalogError)
