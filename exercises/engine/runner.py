"""Grade one file for one exercise: run it in the sandbox, judge what came back, here.

The student's code runs in `routerlab.exercises.engine.harness`, under the supervisor
`routerlab.exercises.engine.sandbox` (limits, a scratch HOME and cwd, its own session, every
descendant killed at the end). What comes back is data: the observations of each probe, or the
answers of a predict exercise. This module reads it defensively (a line that is not a result is a
problem, not a traceback), and `routerlab.exercises.engine.judge` compares it with the model, in
this process. The student's printed output comes back capped, with control characters shown escaped
so that it cannot draw on the student's terminal (a fake green "passed" line, say).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..catalog import Exercise, Kind
from ..checks import suite_for
from ..checks.base import PredictSuite
from ..report import ERROR, CheckReport, Outcome, printable
from .bounded import Malformed, bounded_json
from .jail_image import ABSENT
from .literals import literal_reply, read_source

if TYPE_CHECKING:
    from .jail import Jail
    from .judge import Expected

_ABSENT_NAME = re.compile(re.escape(ABSENT) + r": RouterLab's own (\S+) is absent")
OUTPUT_LIMIT = 4000
"""Bytes of the student's printed output kept for the report (the end of it)."""
RESULT_LIMIT = 8 * 1024 * 1024
"""Bytes of results the student's process may send; more is refused, not stored."""
MEMORY_LIMIT = 2 * 1024 ** 3
"""RLIMIT_AS of the student's process: numpy and the model need a few hundred MB of address
space; a runaway allocation stops here instead of taking the machine."""
FILE_LIMIT = 16 * 1024 * 1024
"""RLIMIT_FSIZE: the largest file the student's process may write (in its scratch folder)."""
STARTUP_LIMIT = 30.0
"""Seconds RouterLab's own imports may take in the student's process before its time limit
starts (a loaded classroom machine must not fail a student for RouterLab's start-up)."""
SANDBOX = Path(__file__).with_name("sandbox.py")


@dataclass(frozen=True)
class Candidate:
    """Code to check: a file, and how to name it to the student."""

    path: Path
    display: str


def run_checks(exercise: Exercise, candidate: Candidate, timeout: float | None = None,
               expected: Expected | None = None, jail: Jail | None = None,
               predict_as_data: bool = False) -> CheckReport:
    """Grade `candidate` against `exercise`; never raises for what the code does. `expected`
    (default: the model's results, checked against the exercise's seal) is what a class
    workspace passes instead: its course bundle's visible results, the hidden checks left to
    grading (`routerlab.exercises.authoring.bundle.visible_expected`).

    `jail`: run it in that OS jail (`routerlab.exercises.engine.jail`) instead of the sandbox.
    `predict_as_data`: a predict file's answers are read from its literals and never run (how a
    class is graded; see `routerlab.exercises.engine.literals`)."""
    limit = timeout or exercise.timeout
    if predict_as_data and exercise.kind is Kind.PREDICT:
        suite = suite_for(exercise)
        assert isinstance(suite, PredictSuite)
        return judge_reply(exercise, literal_reply(candidate.path, suite), limit, expected)
    with ThreadPoolExecutor(max_workers=1) as model:
        # the model's results are computed here while the student's code runs over there
        wanted = model.submit(_expected, exercise) if expected is None else None
        if jail is not None:
            reply = jail.run(exercise, read_source(candidate.path), candidate.display, limit)
        else:
            reply = _one_check_jail(exercise, candidate, limit) \
                or sandboxed(exercise, candidate, limit)
        if wanted is not None:
            expected = wanted.result()
        return judge_reply(exercise, reply, limit, expected)


def _one_check_jail(exercise: Exercise, candidate: Candidate, limit: float
                    ) -> dict[str, Any] | None:
    """A single check (`exercises check`, a notebook's `check`) in a jail of its own where
    bubblewrap runs: it starts faster than the sandbox (no guard, so no module is imported
    before it is needed) and holds no answer. None where it cannot run (no bubblewrap, a
    container without user namespaces, `ROUTERLAB_NO_JAIL=1`): the sandbox then runs it."""
    from .jail import Jail, bwrap
    from .jail_image import build_image, graded_targets

    if os.environ.get("ROUTERLAB_NO_JAIL") or bwrap() is None:
        return None
    from ..catalog import load_catalog
    from ..errors import GradesError

    try:
        image = build_image(frozenset(graded_targets(load_catalog())))
        source = read_source(candidate.path)
    except (OSError, GradesError):  # no cache folder to write, a file too large to send
        return None
    with Jail(image, [exercise.checks], warm=False) as jail:
        reply = jail.run(exercise, source, candidate.display, limit)
    return None if reply.get("supervisor") else reply


def _expected(exercise: Exercise) -> Expected:
    from . import judge

    return judge.expected_for(exercise)


def judge_reply(exercise: Exercise, reply: dict[str, Any], limit: float,
                expected: Expected | None = None) -> CheckReport:
    """The report of one run, from its reply (sandbox, jail or literals): the results are read
    with their depth and size capped before parsing, then compared with `expected` (default:
    the model's, checked against the seal) here."""
    report = CheckReport(exercise.id, exercise.title, exercise.points)
    report.seconds = float(reply.get("seconds") or 0.0)
    report.output = _output(reply)
    events, malformed = _events(reply)
    if reply.get("scratch_left"):
        report.problem = Outcome(
            name="leave nothing behind", status=ERROR,
            message="your code left files in the grading jail's scratch folder that could not be "
                    "removed; a later exercise could have read them, so nothing this one did "
                    "counts")
        return report
    if malformed or reply.get("result_truncated"):
        report.problem = Outcome(
            name="read your results", status=ERROR,
            message="the checking process sent something that is not a result"
                    + (" (more than 8 MB)" if reply.get("result_truncated") else "")
                    + "; nothing it sent counts. Does your code write to files it did not open?")
        return report
    from . import judge

    suite = suite_for(exercise)
    if expected is None:
        expected = judge.expected_for(exercise)
    problem = next((e["problem"] for e in events if isinstance(e.get("problem"), dict)), None)
    if isinstance(suite, PredictSuite):
        answers = next((e["answers"] for e in events if "answers" in e), None)
        if answers is not None:
            report.outcomes = judge.judge_predict(exercise, suite, answers, expected.answers,
                                                  expected.at_grading)
    else:
        sent = {e["check"]: e for e in events if isinstance(e.get("check"), int)}
        for index, check in enumerate(suite.checks):
            if check.name in expected.at_grading:
                report.outcomes.append(judge.at_grading_outcome(check))
            elif index in sent:
                want = expected.observations.get(check.name, [])
                report.outcomes.append(judge.judge_check(check, want, sent[index],
                                                         exercise.tolerance))
            else:
                report.outcomes.append(judge.not_run(check))
    if problem is not None:
        report.problem = _outcome_from(problem)
    done = next((e for e in events if e.get("done") is True), None)
    delegated = [d for d in (done or {}).get("delegated", []) if isinstance(d, str)]
    delegated += [m.group(1) for o in report.outcomes
                  if (m := _ABSENT_NAME.search(o.message or ""))][:1]
    if delegated:
        names = ", ".join(d.split(":")[-1] for d in delegated)
        report.problem = Outcome(
            name="write it yourself", status=ERROR, hint=1,
            message=f"your code calls RouterLab's own {names}: this exercise asks you to do that "
                    "work yourself, so a submission that hands it to RouterLab does not pass")
    elif report.problem is None and done is None:
        report.problem = _stopped(reply, events, suite, limit)
    if expected.problems and report.problem is None:
        report.problem = Outcome(
            name="the catalog", status=ERROR,
            message="this RouterLab's model no longer gives the results the exercise was sealed "
                    "with (" + "; ".join(expected.problems) + "); ask your teacher to run "
                    "`routerlab teacher lint`")
    if report.passed and not expected.at_grading:
        report.unlock = (judge.predict_key(exercise.id, suite, expected.answers)
                         if isinstance(suite, PredictSuite)
                         else judge.implement_key(exercise.id, expected.observations))
    return report


def sandboxed(exercise: Exercise, candidate: Candidate, timeout: float) -> dict[str, Any]:
    """Run the harness on `candidate` under the supervisor; its reply, as data."""
    request = {"exercise": exercise.id, "path": str(candidate.path.resolve()),
               "display": candidate.display, "params": exercise.variant_params()}
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONUNBUFFERED": "1",
           "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8",
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    argv = [sys.executable, "-I", "-B", "-u", "-m", "routerlab.exercises.engine.harness",
            json.dumps(request)]
    order = {"argv": argv, "env": env, "timeout": timeout, "startup": STARTUP_LIMIT,
             "cpu": int(timeout) + 2,
             "memory": MEMORY_LIMIT, "fsize": FILE_LIMIT, "output_limit": OUTPUT_LIMIT,
             "result_limit": RESULT_LIMIT}
    done = subprocess.run([sys.executable, "-I", "-S", "-B", str(SANDBOX)],
                          input=json.dumps(order).encode(), capture_output=True,
                          timeout=timeout + STARTUP_LIMIT + 30, check=False)
    try:
        reply = json.loads(done.stdout)
    except ValueError:
        reply = None
    if not isinstance(reply, dict):
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return {"returncode": None, "timed_out": False, "result": "", "output": "",
                "output_bytes": 0, "supervisor": f"the sandbox failed: {tail[0]}"}
    return reply


def _events(reply: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    events: list[dict[str, Any]] = []
    result = reply.get("result")
    text = result if isinstance(result, str) else ""
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            event = bounded_json(line)
        except Malformed:
            return events, True
        if not isinstance(event, dict):
            return events, True
        events.append(event)
    return events, False


def _stopped(reply: dict[str, Any], events: list[dict[str, Any]], suite: Any,
             limit: float) -> Outcome:
    """A killed, crashed or cut-short process, as a plain-language problem. Code that ends the
    process early (`os._exit(0)`) does not pass on the checks it ran before."""
    if reply.get("supervisor"):
        return Outcome(name="run your code", status=ERROR, message=str(reply["supervisor"]))
    running = [e["running"] for e in events if isinstance(e.get("running"), int)]
    finished = {e["check"] for e in events if isinstance(e.get("check"), int)}
    where = ""
    if running and running[-1] not in finished and running[-1] < len(suite.checks):
        where = f" (it was running the check “{suite.checks[running[-1]].name}”)"
    if reply.get("timed_out"):
        message = (f"your code did not finish within {limit:g} s, so RouterLab stopped it{where}. "
                   "Look for a loop that never ends, e.g. a `while` whose condition never "
                   "becomes false")
    elif reply.get("returncode") == 0:
        message = ("the checks did not finish: your code ended the process early (exit() or "
                   f"os._exit()?){where}")
    else:
        message = (f"the checking process stopped (exit code {reply.get('returncode')}){where}: "
                   "your code crashed Python, ran out of memory or CPU time, or exited")
    return Outcome(name="run your code", status=ERROR, message=message)


def _outcome_from(data: dict[str, Any]) -> Outcome:
    return Outcome(name=str(data.get("name") or "load your file"), status=ERROR,
                   message=printable(str(data.get("message") or "")),
                   hint=data.get("hint") if isinstance(data.get("hint"), int) else 1,
                   traceback=[printable(t) for t in data.get("traceback") or []
                              if isinstance(t, str)])


def _output(reply: dict[str, Any]) -> str:
    output = reply.get("output")
    text = printable(output if isinstance(output, str) else "")
    total = reply.get("output_bytes") or 0
    if isinstance(total, int) and total > OUTPUT_LIMIT:
        return f"… ({total} bytes printed, the last {OUTPUT_LIMIT} shown)\n{text}"
    return text


def workers() -> int:
    """Sandboxes run side by side: one per core, at most 8 (each holds a Python and numpy)."""
    return max(1, min(8, os.cpu_count() or 2))
