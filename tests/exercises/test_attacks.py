"""A cheating student's files, each of which passed before the checks moved out of the student's
process (issue 11). Every one must now fail to pass: from `exercises check --all`, from
`teacher recheck` and in the export, even with a progress file edited to say "passed"; and none
may leave a process, a file outside the workspace, or more than a few MB of output behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.engine.jail import unavailable
from routerlab.exercises.engine.runner import SANDBOX, Candidate, run_checks
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.export import results
from routerlab.exercises.learner.workspace import Workspace, init_workspace
from routerlab.exercises.teacher.classroom import GradeOptions, grade_student

TOKEN = uuid.uuid4().hex
OUTSIDE = Path(f"/tmp/routerlab-attack-{TOKEN}")

FORGE_RESULTS = """
import json, os, sys
fd = int(os.environ.get("ROUTERLAB_RESULT_FD", "1"))
for n in range(20):
    os.write(fd, (json.dumps({"check": n, "status": "passed", "observed": []}) + "\\n").encode())
os.write(fd, b'{"done": true, "delegated": []}\\n')
for arg in sys.argv:
    try:
        with open(arg, "a") as f:
            f.write(json.dumps({"event": "outcome", "status": "passed"}) + "\\n")
    except OSError:
        pass
os._exit(0)
"""

NO_OP_CHECKS = """
import sys
from routerlab.exercises.checks.base import Check, Suite
for module in list(sys.modules.values()):
    for value in list(vars(module).values()) if hasattr(module, "__dict__") else []:
        if isinstance(value, Suite):
            value.checks[:] = [Check(c.name, c.hidden, c.hint, lambda sub: [])
                               for c in value.checks]
"""

EDIT_STATE = """
import json, pathlib
state = pathlib.Path(__file__).resolve().parent.parent / ".routerlab" / "state.json"
try:
    state.write_text(json.dumps({"version": 1, "records": {"registry-1": {"status": "passed",
        "attempts": 1, "attempts_to_pass": 1, "unlock": "0" * 64}}}))
except OSError:
    pass
"""

WRITE_OUTSIDE = f"""
try:
    open({str(OUTSIDE)!r}, "w").write("escaped")
except OSError:
    pass
"""

FLOOD = """
import sys
while True:
    sys.stdout.write("x" * 65536)
"""

FAKE_GREEN = """
print("\\x1b[1;32m✓ every check passes, 10 points\\x1b[0m")
"""

MALFORMED = """
import os
os.write(int(os.environ["ROUTERLAB_RESULT_FD"]), b"this is not json\\n{]\\n")
"""

SPAWN = f"""
import os, subprocess
try:
    subprocess.Popen(["sh", "-c", "sleep 30; touch {OUTSIDE}-late"], start_new_session=True)
except OSError:
    pass
try:
    if os.fork() == 0:
        os.setsid()
        import time; time.sleep(30)
except OSError:
    pass
"""

ATTACKS = [FORGE_RESULTS, NO_OP_CHECKS, EDIT_STATE, WRITE_OUTSIDE, FAKE_GREEN, MALFORMED, SPAWN]

DELEGATE = {
    "registry-1": "from routerlab.core.router.handles import HandleContainer\n"
                  "def get_handle(handles, tensor_id, status):\n"
                  "    c = HandleContainer()\n    c._handles = handles\n"
                  "    return c.get(tensor_id, status)\n",
    "quant-1": "import numpy as np\n"
               "from routerlab.exercises.checks.quant import model_scale\n"
               "def compute_scale(values, value):\n    return model_scale(values, value)\n",
    "quant-3": "import numpy as np\nfrom routerlab.core.quant import pack_u32 as p\n"
               "def pack_u32(values, bits):\n"
               "    return [int(w) for w in p(np.array(values, dtype=np.int8), bits)]\n",
}


def _attacked_workspace(tmp_path: Path) -> Workspace:
    workspace = init_workspace(tmp_path / "ws", "mallory")[0]
    for index, exercise in enumerate(load_catalog()):
        source = DELEGATE.get(exercise.id) or ATTACKS[index % len(ATTACKS)]
        workspace.file_for(exercise).write_text(source, encoding="utf-8")
    return workspace


def _forge_state(workspace: Workspace) -> None:
    """The student edits the progress file by hand: every exercise 'passed'."""
    records = {e.id: {"status": "passed", "attempts": 1, "attempts_to_pass": 1,
                      "unlock": "f" * 64} for e in load_catalog()}
    workspace.state_path.write_text(json.dumps({"version": 1, "records": records}))


@pytest.fixture
def scratch_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder this test's sandboxes make their scratch folders in (the supervisor inherits
    TMPDIR), so "nothing left behind" is checked on this test's own runs, not on whatever other
    test runs on the machine leave in /tmp at the same moment."""
    root = tmp_path / "scratch"
    root.mkdir()
    monkeypatch.setenv("TMPDIR", str(root))
    return root


def _stray_processes() -> list[str]:
    done = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=False)
    return [line for line in done.stdout.splitlines() if TOKEN in line and "ps -eo" not in line]


def test_a_workspace_of_attacks_passes_nothing_anywhere(tmp_path: Path,
                                                       scratch_root: Path) -> None:
    workspace = _attacked_workspace(tmp_path)
    runner = CliRunner()
    checked = runner.invoke(app, ["exercises", "check", "--all", "--json", "--dir",
                                  str(workspace.root)], env={"NO_COLOR": "1"})
    verdicts = json.loads(checked.output)
    assert checked.exit_code == 1
    assert [v["id"] for v in verdicts if v["passed"]] == []
    _forge_state(workspace)
    course = Course(workspace)
    assert sum(s.done for s in course.statuses()) == 0, "a forged progress file counts as done"
    document = results(course)
    assert [e["id"] for e in document["exercises"] if e["passed"]] == []
    assert document["points"] == 0
    isolated = unavailable() is None  # the jail where bubblewrap runs, the sandbox elsewhere
    regraded = grade_student(workspace.root, options=GradeOptions(isolation=isolated))
    assert regraded.error == "" and regraded.points == 0 and regraded.passed == 0
    time.sleep(0.5)
    assert not OUTSIDE.exists() and not Path(f"{OUTSIDE}-late").exists()
    assert _stray_processes() == []
    assert list(scratch_root.iterdir()) == []


def _check(tmp_path: Path, exercise_id: str, source: str, timeout: float | None = None):  # noqa: ANN202
    path = tmp_path / f"{exercise_id}.py"
    path.write_text(source, encoding="utf-8")
    return run_checks(load_catalog().get(exercise_id), Candidate(path, path.name), timeout=timeout)


@pytest.mark.parametrize("exercise_id", sorted(DELEGATE))
def test_delegating_to_the_models_own_function_fails_saying_so(tmp_path: Path,
                                                                exercise_id: str) -> None:
    report = _check(tmp_path, exercise_id, DELEGATE[exercise_id])
    assert not report.passed
    assert report.problem is not None and "RouterLab's own" in report.problem.message


def test_forged_result_lines_and_an_early_exit_pass_nothing(tmp_path: Path) -> None:
    report = _check(tmp_path, "quant-3", FORGE_RESULTS)
    assert not report.passed and not any(o.ok for o in report.outcomes)


def test_no_op_checks_only_return_data_that_does_not_match(tmp_path: Path) -> None:
    report = _check(tmp_path, "quant-3", NO_OP_CHECKS + "\ndef pack_u32(values, bits):\n"
                                                        "    return []\n")
    assert not report.passed
    assert all(o.status == "failed" for o in report.outcomes)


def test_a_malformed_results_line_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    report = _check(tmp_path, "quant-3", MALFORMED)
    assert not report.passed and "not a result" in report.problem.message


def test_ansi_escapes_in_output_are_shown_escaped(tmp_path: Path) -> None:
    report = _check(tmp_path, "quant-3", FAKE_GREEN)
    assert "\x1b" not in report.output and "\\x1b[1;32m" in report.output


def test_a_flood_of_output_is_capped_and_leaves_nothing_on_disk(tmp_path: Path,
                                                                scratch_root: Path) -> None:
    report = _check(tmp_path, "quant-3", FLOOD, timeout=2)
    assert not report.passed and "did not finish within 2 s" in report.problem.message
    assert len(report.output) < 5000 and "bytes printed" in report.output
    assert list(scratch_root.iterdir()) == []


def test_writing_outside_the_scratch_folder_is_refused(tmp_path: Path) -> None:
    _check(tmp_path, "quant-3", WRITE_OUTSIDE)
    assert not OUTSIDE.exists()


def _sandbox(argv: list[str], timeout: float) -> dict:
    order = {"argv": argv, "env": {"PATH": os.environ["PATH"]}, "timeout": timeout, "cpu": 10,
             "memory": 1 << 31, "fsize": 1 << 20, "output_limit": 1000, "result_limit": 1000}
    done = subprocess.run([sys.executable, "-I", "-S", str(SANDBOX)],
                          input=json.dumps(order).encode(), capture_output=True, timeout=60)
    return json.loads(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the subreaper is Linux only")
def test_the_sandbox_kills_a_double_forked_grandchild_that_left_the_session() -> None:
    """Below the audit hook: even a process that escaped the process group and the session is
    re-parented to the supervisor and killed when the run ends."""
    script = ("import os, time\n"
              "if os.fork() == 0:\n"
              "    os.setsid()\n"
              "    if os.fork() == 0:\n"
              f"        time.sleep(30); open('{OUTSIDE}-grandchild', 'w')\n"
              "    os._exit(0)\n"
              "os.write(int(os.environ['ROUTERLAB_RESULT_FD']), b'{\"done\": true}')\n")
    reply = _sandbox([sys.executable, "-c", script, TOKEN], timeout=5)
    assert reply["returncode"] == 0 and reply["result"] == '{"done": true}'
    assert reply["stragglers"] >= 1
    time.sleep(0.3)
    assert _stray_processes() == []


def test_the_sandbox_gives_a_scratch_home_and_cwd_and_no_other_descriptors(
        scratch_root: Path) -> None:
    script = ("import os, json\n"
              "fd = int(os.environ['ROUTERLAB_RESULT_FD'])\n"
              "os.write(fd, json.dumps([os.getcwd(), os.environ['HOME'], fd,"
              " sorted(int(f) for f in os.listdir('/proc/self/fd'))]).encode())\n")
    reply = _sandbox([sys.executable, "-c", script], timeout=10)
    cwd, home, fd, fds = json.loads(reply["result"])
    assert Path(cwd).parent.parent == scratch_root and Path(home).parent == Path(cwd).parent
    assert Path(cwd).parent.name.startswith("routerlab-sandbox-")
    assert not Path(cwd).exists(), "the scratch folder is removed afterwards"
    others = set(fds) - {0, 1, 2, fd}
    assert len(others) <= 1, f"inherited descriptors besides the pipe: {others}"  # listdir's own
