"""What a fork sends on the jail's results pipe (`routerlab.exercises.engine.jail`): read as it
comes, whole when it is larger than the pipe's buffer, and cut at `Limits.result_bytes`, which
voids the run. Skipped, with the reason, where bubblewrap cannot run."""

from __future__ import annotations

import json

import pytest

from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.engine.jail import Jail, Limits, unavailable
from routerlab.exercises.engine.jail_image import build_image, graded_targets
from routerlab.exercises.engine.runner import judge_reply

pytestmark = [pytest.mark.skipif(unavailable() is not None, reason=str(unavailable())),
              pytest.mark.alone]  # jails, one at a time (tests/conftest.py)

CATALOG = load_catalog()
EXERCISE = CATALOG.get("build-1")  # its checks' observations are about 190 kB
PIPE_BUFFER = 65536


def _run(limits: Limits) -> dict[str, object]:
    image = build_image(frozenset(graded_targets(CATALOG)))
    with Jail(image, [EXERCISE.checks], limits) as jail:
        return jail.run(EXERCISE, open_solution(EXERCISE), "build_1.py", EXERCISE.timeout)


def test_results_larger_than_the_pipe_arrive_whole_and_pass() -> None:
    reply = _run(Limits())
    text = str(reply["result"])
    assert len(text.encode()) > 2 * PIPE_BUFFER and not reply["result_truncated"]
    events = [json.loads(line) for line in text.splitlines()]
    assert events[0] == {"ready": True} and events[-1]["done"] is True
    assert judge_reply(EXERCISE, reply, EXERCISE.timeout).passed


def test_results_over_the_cap_are_cut_and_void_the_run() -> None:
    cap = PIPE_BUFFER + 1000
    reply = _run(Limits(result_bytes=cap))
    assert reply["result_truncated"] and len(str(reply["result"]).encode()) <= cap
    report = judge_reply(EXERCISE, reply, EXERCISE.timeout)
    assert not report.passed and report.problem is not None
    assert "nothing it sent counts" in report.problem.message
