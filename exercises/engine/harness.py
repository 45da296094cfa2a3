"""The student's process: `python -m routerlab.exercises.engine.harness REQUEST_JSON`, under the
sandbox.

It loads the student's file as a fresh module, runs every probe of the exercise on it and writes
what the probes *saw* (plain data, one JSON line per event) to the result pipe the sandbox gave it
(`ROUTERLAB_RESULT_FD`). It decides nothing: no line it writes says "passed", and the parent
compares the data with the model's (`routerlab.exercises.engine.judge`). Lines are flushed as
they go, so when the student's code hangs and the sandbox kills the process, the parent still
knows which check was running. Errors are reduced to the student's own frames, so a student reads
their traceback, not RouterLab's internals.

Before the student's file is loaded, every RouterLab module is imported and then
`routerlab.exercises.engine.guard.protect` takes the exercised functions out of the student's
reach and installs the audit hook.

Request: {"exercise": id, "path": file, "display": how to name it to the student, "params": the
variant's parameters (the inputs of its visible checks)}.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pkgutil
import sys
import traceback
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, TextIO

from ..report import ERROR, FAILED, Outcome


def main(argv: list[str]) -> int:
    request = json.loads(argv[0])
    from ..catalog import load_catalog
    from ..checks import suite_for

    exercise = load_catalog().get(request["exercise"])
    suite = suite_for(exercise)
    _preload()
    out = os.fdopen(int(os.environ["ROUTERLAB_RESULT_FD"]), "w", encoding="utf-8")
    from . import guard

    path, display = request["path"], request["display"]
    from .jail_image import built_from

    guarded = [*exercise.delegation, *built_from(frozenset(exercise.delegation))]
    guard.protect(guarded, [path], os.environ.get("ROUTERLAB_SCRATCH", os.getcwd()))
    _emit(out, ready=True)  # the student's time limit starts here, not at the imports above
    _run(suite, path, display, out, request.get("params"))
    _emit(out, done=True, delegated=sorted(set(guard.delegated)))
    out.close()
    return 0


def _preload() -> None:
    """Import every RouterLab module now: once the guard is up, the student's code may not read
    RouterLab's sources, and a lazy import inside the model would need to."""
    # The layers the checks reach, each walked from its folder (the package's root also holds
    # setup.py, which is no module of RouterLab's).
    for root in ("routerlab.core", "routerlab.present", "routerlab.teaching",
                 "routerlab.exercises"):
        package = importlib.import_module(root)
        for info in pkgutil.walk_packages(package.__path__, f"{root}."):
            # served peers (asyncio, websockets) run only in the parent: no check of a
            # student's code reaches them, and importing them costs every check ~0.16 s
            if info.name.startswith(("routerlab.cli", "routerlab.exercises.engine.sandbox",
                                     "routerlab.notebook", "routerlab.core.remote",
                                     "routerlab.core.serving")):
                continue
            try:
                importlib.import_module(info.name)
            except Exception:  # noqa: BLE001 - an optional extra (CuPy, Jupyter) that is absent
                continue


def _run(suite: Any, path: str, display: str, out: TextIO,
         params: dict[str, Any] | None = None) -> None:
    from ..checks.base import PredictSuite, Submission, to_data

    try:
        module = _load(path, "routerlab_student")
    except BaseException as error:  # noqa: BLE001 - anything the student's file raises is theirs
        _emit(out, problem=_load_problem(error, path, display).to_json())
        return
    submission = Submission(module, params if isinstance(params, dict) else None)
    if isinstance(suite, PredictSuite):
        answers = {}
        for part in suite.parts:
            if not hasattr(module, part.name):
                answers[part.name] = {"missing": True}
            else:
                value = getattr(module, part.name)
                answers[part.name] = {"todo": True} if value is Ellipsis else to_data(value)
        _emit(out, answers=answers)
        return
    for index, check in enumerate(suite.checks):
        _emit(out, running=index)
        _emit(out, check=index, **_probe(check, submission, path, display))


def _probe(check: Any, submission: Any, path: str, display: str) -> dict[str, Any]:
    """Run one probe on the student's code: the data it saw, or why it saw none."""
    from ...core import BurnPanic
    from ..checks.base import CheckFailure, to_data
    from .guard import DelegationError

    try:
        seen = check.probe(submission)
        return {"observed": [[str(label), to_data(value)] for label, value in seen]}
    except CheckFailure as failure:
        return {"status": FAILED, "message": failure.message, "got": failure.got,
                "expected": failure.expected, "hint": failure.hint or check.hint}
    except DelegationError as error:
        return {"status": FAILED, "message": str(error), "hint": 1}
    except NotImplementedError as error:
        return {"status": FAILED, "traceback": _student_frames(error.__traceback__, path, display),
                "message": "not done yet: your code still raises NotImplementedError (replace the "
                           "TODO)" + (f": {error}" if str(error) else "")}
    except BurnPanic as panic:
        return {"status": FAILED, "traceback": _student_frames(panic.__traceback__, path, display),
                "message": f"with your code, the router panicked as Burn would: {panic.message} "
                           f"(Burn: {panic.source})"}
    except (Exception, SystemExit) as error:  # noqa: BLE001 - reported as the student's error
        frames = _student_frames(error.__traceback__, path, display)
        kind = f"{type(error).__name__}: {error}"
        return {"status": ERROR, "traceback": frames,
                "message": f"your code raised {kind}" if frames else
                           f"RouterLab raised {kind} while using what your code returned"}


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
    for frame, lineno in traceback.walk_tb(tb):
        if os.path.realpath(frame.f_code.co_filename) == real:
            lines.append(f"{display}, line {lineno}, in {frame.f_code.co_name}")
            text = _line(path, lineno)
            if text:
                lines.append(f"    {text}")
    return lines


def _line(path: str, lineno: int) -> str:
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()[lineno - 1].strip()
    except (OSError, IndexError, UnicodeDecodeError):
        return ""


def _emit(out: TextIO, **data: Any) -> None:
    out.write(json.dumps(data) + "\n")
    out.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
