"""Run an exercise's checks on some code, in a subprocess with a time limit.

One subprocess per exercise (and per call), whatever the number of candidate files in it: a
student's `check` has one candidate, the teacher's `lint` has two (starter, then the reference
solution). The student's code cannot hang RouterLab (the process group is killed at the time
limit), cannot crash it, and cannot flood it (its output goes to a file of which only the end is
kept).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from routerlab.exercises.catalog import Exercise
from routerlab.exercises.report import ERROR, CheckReport, Outcome

OUTPUT_LIMIT = 4000
"""Characters of the student's printed output kept for the report (the end of it)."""


@dataclass(frozen=True)
class Candidate:
    """Code to check: a file, and how to name it to the student."""

    path: Path
    display: str


@dataclass
class RunResult:
    reports: list[CheckReport]
    """One per candidate, in order (the reference solution last when it was asked for)."""
    problems: list[str] = field(default_factory=list)
    """Catalog problems the harness found (a sealed answer that the model contradicts)."""


def run_checks(exercise: Exercise, candidates: list[Candidate], *, with_solution: bool = False,
               timeout: float | None = None) -> RunResult:
    """Check every candidate against `exercise`'s suite; never raises for what the code does."""
    limit = (timeout or exercise.timeout) * (len(candidates) + int(with_solution))
    with tempfile.TemporaryDirectory(prefix="routerlab-check-") as scratch_dir:
        scratch = Path(scratch_dir)
        results, output = scratch / "results.jsonl", scratch / "output.txt"
        request = {"exercise": exercise.id, "results": str(results), "scratch": str(scratch),
                   "with_solution": with_solution,
                   "candidates": [{"path": str(c.path), "display": c.display} for c in candidates]}
        (scratch / "request.json").write_text(json.dumps(request), encoding="utf-8")
        results.touch()
        started = time.monotonic()
        returncode, timed_out = _run_harness(scratch / "request.json", output, limit)
        elapsed = time.monotonic() - started
        events = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()
                  if line.strip()]
        printed = _tail(output)
    names = [c.display for c in candidates] + (["reference solution"] if with_solution else [])
    reports = [CheckReport(exercise.id, exercise.title, exercise.points) for _ in names]
    problems = _collect(events, reports)
    for report in reports:
        report.seconds = elapsed / len(reports)
        report.output = printed
    _explain_stop(reports, events, timed_out, returncode, printed, limit)
    return RunResult(reports, problems)


def _run_harness(request: Path, output: Path, limit: float) -> tuple[int | None, bool]:
    command = [sys.executable, "-I", "-B", "-m", "routerlab.exercises.harness", str(request)]
    with open(output, "wb") as sink:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=sink,
                                   stderr=subprocess.STDOUT, start_new_session=os.name != "nt")
        try:
            return process.wait(timeout=limit), False
        except subprocess.TimeoutExpired:
            _kill(process)
            return None, True


def _kill(process: subprocess.Popen[bytes]) -> None:
    if os.name != "nt":
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    else:
        process.kill()
    process.wait()


def _collect(events: list[dict], reports: list[CheckReport]) -> list[str]:
    problems = []
    for event in events:
        kind, index = event["event"], event["candidate"]
        if kind == "lint":
            problems.append(event["problem"])
        elif kind == "outcome":
            reports[index].outcomes.append(Outcome.from_json(event["outcome"]))
        elif kind == "problem":
            reports[index].problem = Outcome.from_json(event["outcome"])
        elif kind == "unlock":
            reports[index].unlock = event["key"]
    return problems


def _explain_stop(reports: list[CheckReport], events: list[dict], timed_out: bool,
                  returncode: int | None, printed: str, limit: float) -> None:
    """Turn a killed, crashed or cut-short process into a plain-language problem on the right
    report. A candidate is finished only when the harness said so: code that ends the process
    early (`os._exit(0)`) must not pass on the checks it ran before."""
    done = {e["candidate"] for e in events if e["event"] == "done"}
    if not timed_out and returncode == 0:
        for index, report in enumerate(reports):
            if index not in done and report.problem is None:
                report.problem = Outcome(
                    name="run your code", status=ERROR,
                    message="the checks did not finish: your code ended the process early "
                            "(exit() or os._exit()?)")
        return
    started = [e["candidate"] for e in events if e["event"] == "start"]
    current = started[-1] if started else 0
    running = [e["check"] for e in events if e["event"] == "running" and e["candidate"] == current]
    finished = len(reports[current].outcomes)
    if timed_out:
        where = f" (it was running the check “{running[-1]}”)" if len(running) > finished else ""
        message = (f"your code did not finish within {limit:g} s, so RouterLab stopped it{where}. "
                   "Look for a loop that never ends, e.g. a `while` whose condition never "
                   "becomes false")
    else:
        last = printed.strip().splitlines()[-1:] or ["no output"]
        message = (f"the checking process stopped unexpectedly (exit code {returncode}: "
                   f"{last[0]}). "
                   "If your code does not call exit() or crash Python, this is a RouterLab bug")
    if reports[current].problem is None:
        reports[current].problem = Outcome(name="run your code", status=ERROR, message=message)
    for report in reports[current + 1:]:
        report.problem = Outcome(name="run your code", status=ERROR,
                                 message="not checked: an earlier candidate used up the time")


def _tail(path: Path) -> str:
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - OUTPUT_LIMIT))
        text = handle.read().decode("utf-8", errors="replace")
    return ("…" + text) if size > OUTPUT_LIMIT else text
