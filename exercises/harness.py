"""The subprocess that runs a student's code: `python -m routerlab.exercises.harness REQUEST`.

It loads each candidate file as a fresh module, runs the exercise's suite against it and appends
one JSON line per event to the results file named in the request, flushing as it goes: if the
student's code loops forever and the parent kills this process, the lines written so far still
say which check was running. Errors are reduced to the student's own frames, so a student reads
their traceback, not RouterLab's internals.

Request (JSON): {"exercise": id, "results": path, "scratch": folder, "candidates": [{"path",
"display"}], "with_solution": bool}. With `with_solution`, the reference solution is checked as a
last
candidate (for a predict exercise it is unsealed with the answers the model computes), which lets
`teacher lint` grade starter and solution in one process.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, TextIO

from routerlab.exercises.report import ERROR, FAILED, PASSED, Outcome

SOLUTION_DISPLAY = "reference solution"


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    from routerlab.exercises.catalog import load_catalog
    from routerlab.exercises.checks import suite_for

    exercise = load_catalog().get(request["exercise"])
    suite = suite_for(exercise)
    candidates = list(request["candidates"])
    with open(request["results"], "a", encoding="utf-8") as out:
        if request.get("with_solution"):
            candidates.append(_solution_candidate(exercise, suite, Path(request["scratch"]), out))
        for index, candidate in enumerate(candidates):
            if candidate is None:  # a reference solution lint could not build (reported)
                _emit(out, index, "done")
            else:
                _run_candidate(index, candidate, suite, out)
    return 0


def _run_candidate(index: int, candidate: dict[str, str], suite: Any, out: TextIO) -> None:
    from routerlab.exercises.checks.base import Submission

    path, display = candidate["path"], candidate["display"]
    _emit(out, index, "start", display=display)
    try:
        module = _load(path, f"routerlab_student_{index}")
    except BaseException as error:  # noqa: BLE001 - anything the student's file raises is theirs
        _emit(out, index, "problem", outcome=_load_problem(error, path, display).to_json())
        _emit(out, index, "done")
        return
    submission = Submission(module)
    all_ok = True
    for check in suite.checks:
        _emit(out, index, "running", check=check.name)
        outcome = _run_check(check, submission, path, display)
        all_ok &= outcome.ok
        _emit(out, index, "outcome", outcome=outcome.to_json())
    if all_ok:
        _emit(out, index, "unlock", key=suite.unlock(submission))
    _emit(out, index, "done")


def _run_check(check: Any, submission: Any, path: str, display: str) -> Outcome:
    from routerlab.core.errors import BurnPanic
    from routerlab.exercises.checks.base import CheckFailure

    outcome = Outcome(name=check.name, hidden=check.hidden, hint=check.hint)
    try:
        check.run(submission)
    except CheckFailure as failure:
        outcome.status, outcome.message = FAILED, failure.message
        outcome.expected = None if check.hidden else failure.expected
        outcome.got, outcome.hint = failure.got, failure.hint or check.hint
        return outcome
    except NotImplementedError as error:
        frames = _student_frames(error.__traceback__, path, display)
        outcome.status, outcome.traceback = FAILED, frames
        outcome.message = ("not done yet: your code still raises NotImplementedError "
                           "(replace the TODO)" + (f": {error}" if str(error) else ""))
        return outcome
    except BurnPanic as panic:
        outcome.status = FAILED
        outcome.message = (f"with your code, the router panicked as Burn would: {panic.message} "
                           f"(Burn: {panic.source})")
        outcome.traceback = _student_frames(panic.__traceback__, path, display)
        return outcome
    except (Exception, SystemExit) as error:  # noqa: BLE001 - reported as the student's error
        outcome.status = ERROR
        outcome.traceback = _student_frames(error.__traceback__, path, display)
        kind = f"{type(error).__name__}: {error}"
        outcome.message = (f"your code raised {kind}" if outcome.traceback else
                           f"RouterLab raised {kind} while using what your code returned")
        return outcome
    outcome.status = PASSED
    return outcome


def _load(path: str, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _load_problem(error: BaseException, path: str, display: str) -> Outcome:
    if isinstance(error, SyntaxError):
        where = f"{display}, line {error.lineno}" if error.lineno else display
        lines = [where, f"    {(error.text or '').rstrip()}",
                 f"{type(error).__name__}: {error.msg}"]
        return Outcome(name="load your file", status=ERROR, hint=1, traceback=lines,
                       message="Python cannot read your file (a syntax error)")
    frames = _student_frames(error.__traceback__, path, display)
    return Outcome(name="load your file", status=ERROR, hint=1, traceback=frames,
                   message=f"your file raised {type(error).__name__}: {error} while loading")


def _student_frames(tb: TracebackType | None, path: str, display: str) -> list[str]:
    """Only the frames that are in the student's file, with its path shown as `display`."""
    real = os.path.realpath(path)
    lines = []
    for frame in traceback.extract_tb(tb):
        if os.path.realpath(frame.filename) == real:
            lines.append(f"{display}, line {frame.lineno}, in {frame.name}")
            if frame.line:
                lines.append(f"    {frame.line.strip()}")
    return lines


def _solution_candidate(exercise: Any, suite: Any, scratch: Path,
                        out: TextIO) -> dict[str, str] | None:
    """The reference solution as a file: solution.py, or the sealed one opened with the answers
    the model computes (checking on the way that the shipped digests are the model's answers)."""
    source = exercise.solution_source()
    if source is None:
        from routerlab.exercises.answers import unseal

        answers = suite.oracle()
        sealed = exercise.sealed()
        wrong = [] if sealed is None else [
            name for name, digest in suite.digests(answers).items()
            if sealed.digests.get(name) != digest]
        if sealed is None or wrong:
            _emit(out, -1, "lint", problem=f"sealed answers disagree with the model for {wrong}"
                  if sealed else "no sealed.json")
            return None
        from routerlab.exercises.answers import unlock_key

        source = unseal(sealed.solution, unlock_key(exercise.id, suite.canonical_answers(answers)))
    path = scratch / "reference_solution.py"
    path.write_text(source, encoding="utf-8")
    return {"path": str(path), "display": SOLUTION_DISPLAY}


def _emit(out: TextIO, candidate: int, event: str, **data: Any) -> None:
    out.write(json.dumps({"candidate": candidate, "event": event, **data}) + "\n")
    out.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
