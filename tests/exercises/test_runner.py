"""Running student code: in a subprocess, with a time limit, errors shown as the student's own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.engine.runner import SANDBOX, Candidate, run_checks
from routerlab.exercises.report import ERROR, FAILED, NOT_RUN, CheckReport

QUANT_3 = load_catalog().get("quant-3")


def _run(tmp_path: Path, source: str, timeout: float | None = None) -> CheckReport:
    path = tmp_path / "03_quant_3.py"
    path.write_text(source, encoding="utf-8")
    return run_checks(QUANT_3, Candidate(path, "exercises/03_quant_3.py"), timeout=timeout)


def test_the_starter_fails_saying_the_todo_is_still_there(tmp_path: Path) -> None:
    report = _run(tmp_path, QUANT_3.starter())
    assert not report.passed and report.problem is None
    assert all(o.status == FAILED for o in report.outcomes)
    first = report.outcomes[0]
    assert "not done yet" in first.message and "NotImplementedError" in first.message
    assert first.traceback[0].startswith("exercises/03_quant_3.py, line ")


def test_a_wrong_answer_says_what_was_expected_and_what_the_code_did(tmp_path: Path) -> None:
    report = _run(tmp_path, "def pack_u32(values, bits):\n    return [0]\n")
    burn_case = report.outcomes[0]
    assert burn_case.status == FAILED
    assert burn_case.expected.startswith("[2147287680]") and burn_case.got.startswith("[0]")
    assert burn_case.hint == 2


def test_hidden_checks_never_carry_the_expected_value(tmp_path: Path) -> None:
    report = _run(tmp_path, "def pack_u32(values, bits):\n    return [len(values)]\n")
    hidden = [o for o in report.outcomes if o.hidden]
    assert hidden and all(o.status == FAILED and o.expected is None for o in hidden)


def test_an_infinite_loop_is_a_failed_check_with_a_clear_message(tmp_path: Path) -> None:
    report = _run(tmp_path, "def pack_u32(values, bits):\n    while True:\n        pass\n",
                  timeout=1.5)  # the run returns at all: the deadline fired, as its message says
    assert not report.passed and report.problem is not None
    message = report.problem.message
    assert "did not finish within 1.5 s" in message and "loop" in message
    assert "Burn's unit test" in message, "names the check that was running"


def test_a_student_exception_is_shown_with_their_frames_only(tmp_path: Path) -> None:
    source = ("def helper(values):\n    return values[99]\n\n"
              "def pack_u32(values, bits):\n    return helper(values)\n")
    report = _run(tmp_path, source)
    outcome = report.outcomes[0]
    assert outcome.status == ERROR
    assert outcome.message.startswith("your code raised IndexError")
    assert outcome.traceback == ["exercises/03_quant_3.py, line 5, in pack_u32",
                                 "    return helper(values)",
                                 "exercises/03_quant_3.py, line 2, in helper",
                                 "    return values[99]"]
    assert not any("routerlab" in line for line in outcome.traceback)


def test_a_syntax_error_points_at_the_line(tmp_path: Path) -> None:
    report = _run(tmp_path, "def pack_u32(values, bits)\n    return []\n")
    assert report.problem is not None and "syntax error" in report.problem.message
    assert report.problem.traceback[0] == "exercises/03_quant_3.py, line 1"


def test_what_the_code_prints_is_kept_and_trimmed(tmp_path: Path) -> None:
    report = _run(tmp_path, "print('x' * 10000)\ndef pack_u32(values, bits):\n    return []\n")
    assert report.output.startswith("… (10001 bytes printed, the last 4000 shown)")
    assert 3990 <= report.output.count("x") <= 4000


def test_the_reference_solution_passes_every_check(tmp_path: Path) -> None:
    report = _run(tmp_path, open_solution(QUANT_3))
    assert report.passed, [o.message for o in report.outcomes if not o.ok]
    assert sum(o.hidden for o in report.outcomes) >= 1


def test_code_that_ends_the_process_early_does_not_pass(tmp_path: Path) -> None:
    """Checks that passed before an os._exit(0) must not make a pass."""
    solution = open_solution(QUANT_3).replace(
        "    per_word = 32 // bits",
        "    global CALLS\n    CALLS += 1\n    if CALLS > 3:\n        os._exit(0)\n"
        "    per_word = 32 // bits")
    report = _run(tmp_path, "import os\nCALLS = 0\n" + solution)
    assert report.outcomes[0].ok and report.outcomes[-1].status == NOT_RUN
    assert not report.passed and "ended the process early" in report.problem.message


@pytest.mark.parametrize("startup, timed_out", [(10.0, False), (0.0, True)])
def test_the_time_limit_starts_when_routerlab_is_ready(startup: float, timed_out: bool) -> None:
    """A child that spends 1 s in its own start-up (RouterLab's imports, slow on a loaded
    machine) before its first result line, then 0.2 s of the student's time, fits a 0.6 s limit
    only because the limit counts from that first line."""
    child = ("import os, time; fd = int(os.environ['ROUTERLAB_RESULT_FD']); time.sleep(1.0); "
             "os.write(fd, b'{\"ready\": true}\\n'); time.sleep(0.2); "
             "os.write(fd, b'{\"done\": true}\\n')")
    order = {"argv": [sys.executable, "-c", child], "env": {}, "timeout": 0.6,
             "startup": startup, "cpu": 5, "memory": 2 * 1024 ** 3, "fsize": 1 << 20,
             "output_limit": 1000, "result_limit": 1000}
    done = subprocess.run([sys.executable, "-I", "-S", "-B", str(SANDBOX)],
                          input=json.dumps(order).encode(), capture_output=True, timeout=30)
    reply = json.loads(done.stdout)
    assert reply["timed_out"] is timed_out
    assert ('"done"' in reply["result"]) is not timed_out
