"""What a fork of the grading jail is offered (issue 33 §6-§9), tried from students' files.

Each test runs student files through the class's own path (`run_checks` with a `Jail`, one fork
per file) and reads what the file saw from its printed output, or the grade it got. One jail
serves the whole module, so the forks here also show that nothing carries from one to the next.
The jail's tests are skipped, with the reason, where bubblewrap cannot run; the sandbox's guard
(a self-study check without bubblewrap) is tried on the same names everywhere.
"""

from __future__ import annotations

import json
import platform
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.engine import seccomp
from routerlab.exercises.engine.jail import DEVICES, SCRATCH_BYTES, Jail, unavailable
from routerlab.exercises.engine.jail_image import BUILT_FROM, build_image, graded_targets
from routerlab.exercises.engine.runner import Candidate, judge_reply, run_checks, sandboxed
from routerlab.exercises.report import CheckReport

pytestmark = pytest.mark.alone  # jails, one at a time (tests/conftest.py)

CATALOG = load_catalog()


@pytest.fixture(scope="module")
def jail() -> Iterator[Jail]:
    if unavailable() is not None:
        pytest.skip(str(unavailable()))
    image = build_image(frozenset(graded_targets(CATALOG)))
    with Jail(image, ["quant", "fix"]) as one:
        yield one


def _grade(jail: Jail, folder: Path, exercise_id: str, source: str) -> CheckReport:
    exercise = CATALOG.get(exercise_id)
    path = folder / exercise.file_name
    path.write_text(source)
    return run_checks(exercise, Candidate(path, path.name), jail=jail)


def _seen(report: CheckReport, tag: str) -> object:
    """The JSON a student file printed after `tag`."""
    found = re.search(rf"{tag} (.*)", report.output)
    assert found, (report.problem, report.output[-2000:])
    return json.loads(found.group(1))


SCALE = "\ndef compute_scale(values, value):\n    return 0.0\n"

SYSCALLS = """
import ctypes, json, os, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
N = NUMBERS
seen = {}
def call(name, number, *args):
    ctypes.set_errno(0)
    got = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) if isinstance(a, int) else a
                                                for a in args])
    if got == 0 and name.startswith("clone"):
        os._exit(0)  # a child the filter should have refused
    seen[name] = [got, ctypes.get_errno()]
for name in REFUSED:
    call(name, N[name], 0, 0, 0, 0, 0)
params = ctypes.create_string_buffer(120)
call("unshare(CLONE_NEWUSER)", N["unshare"], 0x10000000)
call("mount a tmpfs", N["mount"], b"none", b"/tmp", b"tmpfs", 0, None)
call("io_uring_setup(8 entries)", N["io_uring_setup"], 8, params)
call("clone(CLONE_NEWUSER | SIGCHLD)", N["clone"], 0x10000000 | 17, 0, 0, 0, 0)
call("clone(CLONE_NEWNET | SIGCHLD)", N["clone"], 0x40000000 | 17, 0, 0, 0, 0)
call("clone3", N["clone3"], 0, 0)
pid = os.fork()
if pid == 0:
    os._exit(7)
seen["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
ran = []
worker = threading.Thread(target=ran.append, args=(1,))
worker.start()
worker.join()
seen["thread"] = ran
print("SYSCALLS", json.dumps(seen))
"""


def test_every_refused_system_call_fails_inside_a_fork_and_forks_and_threads_still_work(
        jail: Jail, tmp_path: Path) -> None:
    numbers = seccomp.NUMBERS[platform.machine()]
    source = (SYSCALLS.replace("NUMBERS", repr(numbers))
              .replace("REFUSED", repr(list(seccomp.REFUSED))) + SCALE)
    seen = _seen(_grade(jail, tmp_path, "quant-1", source), "SYSCALLS")
    assert isinstance(seen, dict)
    eperm, enosys = seccomp.EPERM, seccomp.ENOSYS
    for name in seccomp.REFUSED:
        assert seen[name] == [-1, eperm], (name, seen[name])
    for name in ("unshare(CLONE_NEWUSER)", "mount a tmpfs", "io_uring_setup(8 entries)",
                 "clone(CLONE_NEWUSER | SIGCHLD)", "clone(CLONE_NEWNET | SIGCHLD)"):
        assert seen[name] == [-1, eperm], (name, seen[name])
    assert seen["clone3"] == [-1, enosys]  # glibc then falls back to clone: threads still run
    assert seen["fork"] == 7 and seen["thread"] == [1]


def test_the_filter_is_built_for_both_architectures_and_refuses_an_unknown_one() -> None:
    for arch in ("x86_64", "aarch64"):
        program = seccomp.program(arch)
        assert len(program) % 8 == 0 and len(program) // 8 < 4096
        assert set(seccomp.NUMBERS[arch]) == {*seccomp.REFUSED, "clone", "clone3"}
    assert seccomp.program("x86_64") != seccomp.program("aarch64")
    with pytest.raises(ValueError, match="riscv64"):
        seccomp.program("riscv64")


SCRATCH = """
import errno, json, os
wrote, error = 0, ""
chunk = b"x" * (4 << 20)
try:
    for i in range(64):  # 256 MiB, in files below the file-size limit
        with open(f"/tmp/fill-{i}", "wb") as handle:
            handle.write(chunk)
        wrote += len(chunk)
except OSError as failed:
    error = errno.errorcode.get(failed.errno, str(failed.errno))
def writable(path):
    try:
        with open(path, "wb") as handle:
            handle.write(b"x")
        return True
    except OSError:
        return False
print("SCRATCH", json.dumps({"wrote": wrote, "error": error, "dev": sorted(os.listdir("/dev")),
                             "shm": writable("/dev/shm/keep"), "dev_file": writable("/dev/keep")}))
os.chmod("/tmp", 0o500)  # the next fork still gets its folder: the wipe makes /tmp writable
"""


def test_the_scratch_holds_64_mib_and_dev_only_null_zero_urandom(jail: Jail,
                                                                 tmp_path: Path) -> None:
    seen = _seen(_grade(jail, tmp_path, "quant-1", SCRATCH + SCALE), "SCRATCH")
    assert isinstance(seen, dict)
    assert seen["error"] == "ENOSPC" and 0 < seen["wrote"] <= SCRATCH_BYTES, seen
    assert seen["dev"] == sorted(Path(d).name for d in DEVICES)
    assert seen["shm"] is False and seen["dev_file"] is False


KEEP = """
import marshal, os
import routerlab.core.quant.scale_dtype as rounding
os.makedirs("/tmp/keep", exist_ok=True)
with open("/tmp/keep/round_up", "wb") as handle:
    handle.write(marshal.dumps(rounding.round_up.__code__))
os.chmod("/tmp/keep/round_up", 0o400)
os.chmod("/tmp/keep", 0o500)
print("KEPT", '"yes"')
"""

USE = """
import json, marshal, os
found = []
for folder, _, names in os.walk("/tmp"):
    if not folder.startswith(os.getcwd()):  # this fork's own folder holds this file
        found += [os.path.join(folder, n) for n in names]
print("FOUND", json.dumps(found))
import routerlab.core.quant.scale_dtype as rounding
def round_up(scale, dtype):
    with open("/tmp/keep/round_up", "rb") as handle:
        rounding.round_up.__code__ = marshal.loads(handle.read())
    return rounding.round_up(scale, dtype)
"""


def test_what_a_fork_stores_in_read_only_folders_is_gone_for_the_next(jail: Jail,
                                                                      tmp_path: Path) -> None:
    """The model's `round_up` is restored in quant-1's fork; stored there behind read-only
    folders, it would pass quant-2 in a later fork."""
    assert _seen(_grade(jail, tmp_path, "quant-1", KEEP + SCALE), "KEPT") == "yes"
    report = _grade(jail, tmp_path, "quant-2", USE)
    assert _seen(report, "FOUND") == []
    assert not report.passed


DEEP = """
import os
os.makedirs("/tmp/" + "/".join(["d"] * 80))
"""


def test_a_fork_that_leaves_what_the_wipe_cannot_remove_fails_and_the_next_gets_a_new_jail(
        jail: Jail, tmp_path: Path) -> None:
    honest = open_solution(CATALOG.get("quant-1"))
    started = jail.started
    report = _grade(jail, tmp_path, "quant-1", DEEP + honest)
    assert not report.passed and report.problem is not None
    assert report.problem.name == "leave nothing behind", report.problem
    after = _grade(jail, tmp_path, "quant-2", USE)
    assert _seen(after, "FOUND") == [] and jail.started == started + 1
    assert _grade(jail, tmp_path, "quant-1", honest).passed


LIFECYCLE = """
from routerlab.core import Runtime
from routerlab.core.router.tensor import status_for as theirs
def _refs(count):
    tensor = Runtime(["cpu:0"]).tensor([1.0], "cpu:0", "f32")
    return [tensor] + [tensor.clone() for _ in range(count - 1)]
"""
FORBIDDEN: dict[str, dict[str, str]] = {
    "quant-1": {
        "compute_q_params": """
from routerlab.core.quant import parse_scheme
from routerlab.core.quant.calibration import compute_q_params
def compute_scale(values, value):
    return float(compute_q_params(parse_scheme(value), np.array([min(values)], dtype=np.float32),
                                  np.array([max(values)], dtype=np.float32)).scales[0])
""",
        "compute_range": """
from routerlab.core.quant import parse_scheme
from routerlab.core.quant.calibration import Calibration, compute_range
def compute_scale(values, value):
    scheme = parse_scheme(value)
    low, high = compute_range(np.array(values, dtype=np.float32), scheme, Calibration.MINMAX)
    a, b = scheme.value.range
    return float(2 * max(abs(low[0]), abs(high[0])) / (b - a))
""",
        "_raw_scales": """
from routerlab.core.quant import parse_scheme
from routerlab.core.quant.calibration import _raw_scales
def compute_scale(values, value):
    return float(_raw_scales(parse_scheme(value), np.array([min(values)]),
                             np.array([max(values)]))[0])
""",
        "flex_q_params": """
from routerlab.core.quant import parse_scheme
from routerlab.core.quant.calibration import flex_q_params
def compute_scale(values, value):
    return float(flex_q_params(parse_scheme(value), np.array([min(values)]),
                               np.array([max(values)])).scales[0])
""",
        "flex_range": """
from routerlab.core.quant import parse_scheme
from routerlab.core.quant.calibration import flex_range
def compute_scale(values, value):
    scheme = parse_scheme(value)
    a, b = scheme.value.range
    return float(2 * flex_range(np.array(values, dtype=np.float32), scheme)[1][0] / (b - a))
""",
        "model_scale": """
from routerlab.exercises.checks.quant import model_scale
def compute_scale(values, value):
    return model_scale(values, value)
""",
    },
    "lifecycle-1": {
        name: LIFECYCLE + body for name, body in {
            "status_for": "def status_for(count):\n    return theirs(count)\n",
            "RouterTensor.into_ir": "def into_ir(count):\n"
                                    "    used = _refs(count)[0].into_ir()\n"
                                    "    return used.status, count - 1, False\n",
            "RouterTensor.drop": "def drop(count):\n"
                                 "    _refs(count)[0].drop()\n"
                                 "    return count - 1, count == 1\n",
            "RouterTensor._release": "def drop(count):\n"
                                     "    _refs(count)[0]._release()\n"
                                     "    return count - 1, count == 1\n",
        }.items()},
    "fix-1": {
        "is_quantized_handle": """
from routerlab.core.fix.guard import is_quantized_handle as theirs
def is_quantized_handle(kind):
    return theirs(kind)
def can_move_to_device(kind, policy="native"):
    return not theirs(kind) or policy in ("native", "dequantize", "requantize")
""",
        "can_move_to_device": """
from routerlab.core.fix.guard import can_move_to_device as theirs
def is_quantized_handle(kind):
    return not theirs(kind, "reject")
def can_move_to_device(kind, policy="native"):
    return theirs(kind, policy)
""",
        "_kind": """
from routerlab.core.router.backend import Kind
from routerlab.core.fix.guard import _kind
def is_quantized_handle(kind):
    return _kind(kind) is Kind.QUANTIZED
def can_move_to_device(kind, policy="native"):
    return True
""",
        "Policy.moves": """
from routerlab.core.router.backend import HandleKind, Kind, kind_of
from routerlab.core.base.policies import Policy
def _k(kind):
    return kind.kind if isinstance(kind, HandleKind) else kind if isinstance(kind, Kind) \\
        else kind_of(kind)
def is_quantized_handle(kind):
    return _k(kind) is Kind.QUANTIZED
def can_move_to_device(kind, policy="native"):
    chosen = Policy.parse(policy)
    if is_quantized_handle(kind):
        return chosen.moves
    return not (chosen is Policy.LEGACY and _k(kind) is Kind.UINT)
""",
        "plan_transfer": """
from routerlab.core.base.devices import parse_device
from routerlab.core.fix.guard import plan_transfer
def is_quantized_handle(kind):
    return False
def can_move_to_device(kind, policy="native"):
    return plan_transfer(kind, (2,), parse_device("cpu:0"), parse_device("cpu:1"),
                         policy=policy).ok
""",
    },
}
"""Per exercise, the model's names a submission may not hand its work to: the graded functions,
the helpers `BUILT_FROM` strips with them, their twins, the check's own model, and a model path
built on the graded function (`plan_transfer` asks `is_quantized_handle` first)."""


@pytest.mark.parametrize("exercise_id", sorted(FORBIDDEN))
def test_a_submission_calling_any_name_the_graded_function_is_built_from_fails(
        jail: Jail, tmp_path: Path, exercise_id: str) -> None:
    delegation = CATALOG.get(exercise_id).delegation
    stripped = {name.split(":")[-1] for target in delegation
                for name in (target, *BUILT_FROM.get(target, ()))}
    assert stripped <= set(FORBIDDEN[exercise_id])  # the table covers every stripped name
    for name, source in FORBIDDEN[exercise_id].items():
        report = _grade(jail, tmp_path, exercise_id, "import numpy as np\n" + source)
        assert not report.passed, name
        message = report.problem.message if report.problem else ""
        assert "RouterLab's own" in message, (name, message,
                                               [o.message for o in report.outcomes][:2])
    assert _grade(jail, tmp_path, exercise_id, open_solution(CATALOG.get(exercise_id))).passed


@pytest.mark.slow
@pytest.mark.parametrize("exercise_id", sorted(FORBIDDEN))
def test_without_bubblewrap_the_sandbox_guard_refuses_the_same_names(tmp_path: Path,
                                                                     exercise_id: str) -> None:
    exercise = CATALOG.get(exercise_id)
    path = tmp_path / exercise.file_name
    for name, source in FORBIDDEN[exercise_id].items():
        path.write_text("import numpy as np\n" + source)
        report = judge_reply(exercise, sandboxed(exercise, Candidate(path, path.name), 10), 10)
        message = report.problem.message if report.problem else ""
        assert not report.passed and "RouterLab's own" in message, (name, message)


PRINTS = """
import fcntl, os, sys
sys.stdout.flush()
try:  # a pipe of 1 MiB (F_SETPIPE_SZ): the whole blob is in it before the fork ends
    fcntl.fcntl(1, 1031, 1 << 20)
except OSError:
    pass
blob = ("MARK-TAG " * 100 + "\\n").encode() * SIZE + b"MARK-TAG-END"
while blob:
    blob = blob[os.write(1, blob):]
"""


def test_printed_output_is_recorded_under_its_own_exercise(
        jail: Jail, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork that writes most of a megabyte in one go as its last act, then one that prints one
    line: each report keeps the true end of its own output, and only its own.

    The teacher's process is made slow to read (as when its other threads hold the GIL, judging
    another student), so the control line and the output are both waiting when it looks."""
    control = Jail._control

    def slow(self: Jail, deadline: float, *args: Any) -> Any:
        time.sleep(1.5)  # the fork writes, ends, and the host says so meanwhile
        return control(self, deadline + 1.5, *args)

    monkeypatch.setattr(Jail, "_control", slow)
    for turn in range(4):
        size = 900 if turn % 2 == 0 else 1
        source = PRINTS.replace("SIZE", str(size)).replace("TAG", str(turn))
        report = _grade(jail, tmp_path, "quant-1", source + SCALE)
        assert set(re.findall(r"MARK-(\d+)", report.output)) == {str(turn)}, turn
        assert report.output.rstrip().endswith(f"MARK-{turn}-END"), turn  # all of it was read


def test_an_architecture_without_a_filter_makes_the_jail_unavailable_not_a_crash(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from routerlab.exercises.engine import jail as jail_module

    if jail_module.bwrap() is None:
        pytest.skip("bubblewrap is not installed")
    monkeypatch.setattr(seccomp.platform, "machine", lambda: "riscv64")
    jail_module.unavailable.cache_clear()
    try:
        assert "no seccomp filter for the riscv64" in str(jail_module.unavailable())
    finally:
        jail_module.unavailable.cache_clear()
    image = build_image(frozenset(graded_targets(CATALOG)))
    with Jail(image, ["quant"], warm=False) as one:
        reply = one.run(CATALOG.get("quant-1"), SCALE, "quant_1.py", 10)
    assert "riscv64" in reply["supervisor"] and one.started == 0
