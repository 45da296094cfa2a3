"""Grading in the bubblewrap jail (issue 20 §2, §4; issue 24 §2): the attack suite.

One class, graded by `teacher recheck --roster`: each student below is one attack on a class
workspace. Every attack must gain 0 points, leave no file outside the jail and no process alive
after the regrade, and leave the grades CSV as the regrade wrote it (the digest still checks).
An honest student, with solutions in other styles (numpy scalars, tuples, floats to 3 decimals),
gets every point of the same files. Skipped, with the reason, where bubblewrap cannot run.
"""

from __future__ import annotations

import csv
import json
import marshal
import os
import re
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.checks import suite_for
from routerlab.exercises.engine.jail import unavailable
from routerlab.exercises.engine.jail_image import ABSENT, KEEP, build_image, graded_targets
from routerlab.exercises.learner.workspace import MARKER, init_workspace
from routerlab.exercises.teacher.classroom import GradeOptions, grade_student

TOKEN = uuid.uuid4().hex
OUTSIDE = Path(f"/tmp/routerlab-jail-attack-{TOKEN}")
SECRET = f"teacher-secret-{TOKEN}"

pytestmark = [pytest.mark.skipif(unavailable() is not None, reason=str(unavailable())),
              pytest.mark.alone]  # the jail's cgroups, and jails under prlimit

SCALE = "def compute_scale(values, value):\n"

ATTACKS: dict[str, tuple[str, str]] = {
    "fork-exec": ("quant-1", f"""
import _posixsubprocess, os, subprocess
argv = ["/bin/sh", "-c", "sleep 3; echo {TOKEN} > {OUTSIDE}-forkexec"]
try:
    _posixsubprocess.fork_exec(argv, [b"/bin/sh"], True, (), None, None, -1, -1, -1, -1, -1, -1,
                               *os.pipe(), False, True, -1, None, None, None, -1, None)
except TypeError:  # another Python's signature: the same call, through subprocess
    subprocess.Popen(argv, start_new_session=True)
{SCALE}    return 0.0
"""),
    "kill-and-rewrite": ("quant-1", f"""
import os, signal, subprocess
for pid in range(1, 300):
    try:
        os.kill(pid, signal.SIGKILL) if pid != os.getpid() else None
    except OSError:
        pass
subprocess.Popen(["/bin/sh", "-c", "sleep 3; echo s1,405 > GRADES; echo {TOKEN}"],
                 start_new_session=True)
{SCALE}    return 1.0
"""),
    "write-outside": ("quant-1", f"""
import os, sqlite3
for make in (lambda p: sqlite3.connect(p).execute("create table t (x)"),
             lambda p: os.mkfifo(p), lambda p: os.mknod(p), lambda p: open(p, "w").write("x")):
    for where in ("{OUTSIDE}-" + str(id(make)), "SUBMISSION/escaped-" + str(id(make))):
        try:
            make(where)
        except Exception:
            pass
{SCALE}    return 0.0
"""),
    "read-teacher-files": ("quant-1", f"""
import os
paths = ["TEACHER_SECRET", "/proc/1/environ", "/root/.bash_history", "/etc/shadow"]
for top in ("/jail", "/work", "/root", "/home", "/tmp", "/var"):
    for folder, _, names in os.walk(top):
        paths += [os.path.join(folder, n) for n in names if n in ("sealed.json", "grades.csv")]
found = []
for path in paths:
    try:
        found.append((path, open(path).read()[:100]))
    except Exception:
        pass
print("READ:", found, flush=True)
{SCALE}    raise ValueError(str(found))
"""),
    "udp": ("quant-1", f"""
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b"{TOKEN}", ("127.0.0.1", UDP_PORT))
except OSError as error:
    print("udp:", error)
{SCALE}    return 0.0
"""),
    "threads": ("quant-1", f"""
import threading, time
def later():
    time.sleep(2)
    open("{OUTSIDE}-thread", "w").write("late")
threading.Thread(target=later).start()
{SCALE}    return 0.0
"""),
    "import-grader": ("quant-1", f"""
from routerlab.exercises.checks.quant import model_scale
{SCALE}    try:
        from routerlab.exercises.engine import judge
        return judge.expected("quant-1").observations
    except Exception:
        return model_scale(values, value)
"""),
    "stack-and-gc": ("quant-1", f"""
import gc, sys, types
def _real(name):
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and obj.__name__ == name \\
                and "{ABSENT}" not in repr(obj.__code__.co_consts):
            return obj
{SCALE}    frame = sys._getframe(1)
    while frame is not None:
        for key, found in frame.f_locals.items():
            if "expect" in key:
                return found
        frame = frame.f_back
    model = _real("model_scale") or _real("compute_q_params")
    return model(values, value)
"""),
    "module-attributes": ("quant-1", f"""
import sys
{SCALE}    for module in list(sys.modules.values()):
        for name in ("_originals", "model_scale", "compute_q_params", "compute_range"):
            found = getattr(module, name, None)
            if isinstance(found, dict):
                for key, function in found.items():
                    if "compute" in key:
                        return function(values, value)
            elif callable(found) and name == "model_scale":
                return found(values, value)
    raise LookupError("nothing to delegate to")
"""),
    "compile-fake-name": ("quant-1", f"""
import inspect
import routerlab.core.quant.calibration as calibration
source = open(calibration.__file__).read()
space = {{}}
exec(compile(source, "<routerlab>/core/quant/calibration.py", "exec"), space)
{SCALE}    import numpy as np
    scheme = space["parse_scheme"](value) if "parse_scheme" in space else None
    from routerlab.core.quant import parse_scheme, Calibration
    scheme = parse_scheme(value)
    low, high = space["compute_range"](np.array(values, dtype=np.float32), scheme,
                                      Calibration.MINMAX)
    return float(space["compute_q_params"](scheme, low, high).scales.reshape(-1)[0])
"""),
    "deep-result": ("quant-1", f"""
import os
for fd in range(3, 64):
    try:
        os.write(fd, b"[" * 100_000 + b"]" * 100_000 + b"\\n")
    except OSError:
        pass
{SCALE}    return 0.0
"""),
    "flood": ("quant-1", """
import sys
chunk = "x" * (1 << 20)
for _ in range(200):
    sys.stdout.write(chunk)
def compute_scale(values, value):
    return 0.0
"""),
    "fork-bomb": ("quant-1", f"""
import os
{SCALE}    while True:
        try:
            os.fork()
        except OSError:
            pass
"""),
    "predict-calls": ("flow-1", f"""
SERVERS = __import__("os").system("echo {TOKEN} > {OUTSIDE}-predict")
SESSIONS = len(open("/etc/hostname").read())
NEIGHBOURS = suite.oracle()["NEIGHBOURS"]
"""),
}


def _class_workspace(root: Path, student_id: str) -> Path:
    """A class workspace whose marker names its roster id."""
    workspace = init_workspace(root / student_id, f"student {student_id}")[0]
    marker = workspace.root / MARKER
    if "student_id" not in marker.read_text():
        marker.write_text(marker.read_text() + f"student_id = {json.dumps(student_id)}\n")
    return workspace.root


def _honest(folder: Path) -> dict[str, str]:
    """Right answers written differently from the reference: numpy scalars, a tuple, floats
    rounded to the tolerance an exercise states."""
    catalog = load_catalog()
    files = {"quant-1": "import numpy as np\nRANGES = {'q8s': (-127, 127), 'q8f': (-128, 127), "
                        "'q4s': (-7, 7), 'q4f': (-8, 7), 'q2s': (-1, 1), 'q2f': (-2, 1)}\n"
                        "def compute_scale(values, value):\n"
                        "    a, b = RANGES[value]\n"
                        "    arr = np.asarray(values, dtype=np.float64)\n"
                        "    alpha = max(abs(arr.min()), abs(arr.max()))\n"
                        "    return np.float64(2 * alpha / (b - a))\n",
             "quant-3": open_solution(catalog.get("quant-3"))}
    flow = suite_for(catalog.get("flow-1")).oracle()
    files["flow-1"] = "".join(f"{k} = {tuple(v) if isinstance(v, list) else v!r}\n"
                              for k, v in flow.items())
    fix3 = catalog.get("fix-3")
    answers = suite_for(fix3).oracle()
    files["fix-3"] = "".join(
        f"{k} = {[round(x, 3) for x in v] if isinstance(v, list) and v and isinstance(v[0], float) else (round(v, 3) if isinstance(v, float) else v)!r}\n"  # noqa: E501
        for k, v in answers.items())
    for exercise_id, source in files.items():
        (folder / "exercises" / catalog.get(exercise_id).file_name).write_text(source)
    return files


def _stray() -> list[str]:
    done = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=False)
    return [line for line in done.stdout.splitlines() if TOKEN in line and "ps -eo" not in line]


def test_every_attack_scores_zero_leaves_nothing_and_the_honest_student_passes(
        tmp_path: Path) -> None:
    submitted = tmp_path / "submitted"
    grades = tmp_path / "grades.csv"
    secret = tmp_path / "teacher-secret.txt"
    secret.write_text(SECRET)
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.setblocking(False)
    roster = ["id,name,email", "honest,Ada,ada@example.org"]
    catalog = load_catalog()
    for name, (exercise_id, source) in ATTACKS.items():
        folder = _class_workspace(submitted, name)
        source = (source.replace("GRADES", str(grades)).replace("SUBMISSION", str(folder))
                  .replace("TEACHER_SECRET", str(secret))
                  .replace("UDP_PORT", str(listener.getsockname()[1])))
        (folder / "exercises" / catalog.get(exercise_id).file_name).write_text(source)
        roster.append(f"{name},{name},{name}@example.org")
    honest = _honest(_class_workspace(submitted, "honest"))
    (tmp_path / "roster.csv").write_text("\n".join(roster) + "\n")
    outside_before = set(Path("/tmp").glob(f"routerlab-jail-attack-{TOKEN}*"))
    result = CliRunner().invoke(app, [
        "teacher", "recheck", str(submitted), "--roster", str(tmp_path / "roster.csv"),
        "--out", str(grades), "--jobs", "2", "--feedback", str(tmp_path / "feedback")],
        env={"NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    written = grades.read_bytes()
    rows = {r["id"]: r for r in csv.DictReader(grades.open())}
    possible = sum(catalog.get(e).points for e in honest)
    assert float(rows["honest"]["points"]) == possible, rows["honest"]
    for name in ATTACKS:
        assert float(rows[name]["points"]) == 0, (name, rows[name])
    time.sleep(4)  # past every attack's delayed write
    assert grades.read_bytes() == written, "the grades CSV changed after the regrade"
    check = subprocess.run(["sha256sum", "-c", str(grades.with_suffix(".sha256"))],
                           cwd=submitted, capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    assert set(Path("/tmp").glob(f"routerlab-jail-attack-{TOKEN}*")) == outside_before == set()
    assert not list(submitted.rglob("escaped-*"))
    assert _stray() == []
    with pytest.raises(BlockingIOError):
        listener.recvfrom(100)
    journal = grades.with_suffix(".jsonl").read_text()
    assert SECRET not in journal
    results = {json.loads(line)["student_id"]: json.loads(line) for line in journal.splitlines()}
    read = results["read-teacher-files"]["exercises"]
    output = next(e for e in read if e["id"] == "quant-1")["output"]
    assert "READ: []" in output, output  # not one teacher file was readable in the jail
    assert (tmp_path / "feedback" / "honest.html").is_file()


def test_the_image_holds_no_graded_function_no_model_answer_and_no_catalog(
        tmp_path: Path) -> None:
    targets = frozenset(graded_targets(load_catalog()))
    image = build_image(targets, tmp_path)
    files = list(image.root.rglob("*"))
    assert not [f for f in files if f.name in ("sealed.json", "exercise.toml", "index.toml",
                                               "removed.json")]
    # the removed sources are kept beside the mounted folder, and a later check reads them
    # there instead of parsing every source again
    assert (image.root.parent / "removed.json").is_file()
    # compiled when built (the jail's Python runs with -B on a read-only mount), from the
    # stripped sources: the model's answer is absent from the bytecode too
    pyc = next((image.root / "routerlab" / "core" / "quant").glob("__pycache__/calibration.*.pyc"))
    module = marshal.loads(pyc.read_bytes()[16:])
    body = next(c for c in module.co_consts if getattr(c, "co_name", "") == "compute_range")
    assert any(ABSENT in str(c) for c in body.co_consts)
    assert body.co_names == ("__import__", "absent")  # the guard's DelegationError, nothing else
    assert build_image.__wrapped__(targets, tmp_path).removed == image.removed
    calibration = (image.root / "routerlab" / "core" / "quant" / "calibration.py").read_text()
    assert "def compute_range(" in calibration and ABSENT in calibration
    assert "np.abs" not in calibration.split("def compute_range(")[1].split("\ndef ")[0]
    quant_checks = (image.root / "routerlab" / "exercises" / "checks" / "quant.py").read_text()
    model = quant_checks.split("def model_scale(")[1].split("\ndef ")[0]
    assert ABSENT in model and "compute_q_params(" not in model
    assert image.restores(("routerlab.core.quant.calibration:compute_range",)) and not [
        r for r in image.restores(("routerlab.core.quant.calibration:compute_range",))
        if r["target"].endswith(("compute_range", "model_scale"))]


def test_a_new_image_prunes_the_cache_to_the_images_used_last(tmp_path: Path) -> None:
    """Building keeps the `KEEP` images used last and removes older ones and staging folders
    a killed build left; a fresh staging folder (a build under way) stays."""
    cache = tmp_path / "routerlab" / "jail"
    old = []
    for age in range(KEEP + 2):  # image 0 used last, image KEEP + 1 longest ago
        folder = cache / f"old{age}"
        folder.mkdir(parents=True)
        (folder / "complete").write_text("ok\n")
        os.utime(folder / "complete", (time.time() - 60 * (age + 1),) * 2)
        old.append(folder)
    stale, building = cache / ".building-killed", cache / ".building-now"
    stale.mkdir()
    building.mkdir()
    os.utime(stale, (time.time() - 2 * 3600,) * 2)
    image = build_image(frozenset(graded_targets(load_catalog())), tmp_path)
    assert (image.root.parent / "complete").is_file()
    assert [f.exists() for f in old] == [True] * KEEP + [False, False]
    assert building.exists() and not stale.exists()


def test_every_reference_solution_passes_in_the_jail(tmp_path: Path) -> None:
    catalog = load_catalog()
    folder = _class_workspace(tmp_path, "ref")
    for exercise in catalog:
        (folder / "exercises" / exercise.file_name).write_text(open_solution(exercise))
    result = grade_student(folder, None, GradeOptions())
    assert result.error == ""
    failed = [(e.id, e.problem, [c.message for c in e.checks if c.status != "passed"][:1])
              for e in result.exercises if not e.passed]
    assert failed == []
    assert result.points == catalog.total_points
    assert os.listdir("/proc") and _stray() == []


def test_resume_grades_only_the_students_the_journal_lacks_and_no_isolation_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    submitted = tmp_path / "submitted"
    for sid in ("s1", "s2"):
        folder = _class_workspace(submitted, sid)
        exercise = load_catalog().get("quant-3")
        (folder / "exercises" / exercise.file_name).write_text(open_solution(exercise))
    (tmp_path / "roster.csv").write_text("id,name,email\ns1,A,a@x\ns2,B,b@x\ns3,C,c@x\n")
    grades = tmp_path / "grades.csv"
    argv = ["teacher", "recheck", str(submitted), "--roster", str(tmp_path / "roster.csv"),
            "--out", str(grades), "--format", "plain"]
    first = CliRunner().invoke(app, argv, env={"NO_COLOR": "1"})
    assert first.exit_code == 0, first.output
    journal = grades.with_suffix(".jsonl")
    lines = journal.read_text().splitlines()
    assert len(lines) == 2
    journal.write_text(lines[0] + "\n")  # interrupted after the first student
    graded: list[str] = []
    from routerlab.exercises.teacher import classroom

    original = classroom.grade_job
    monkeypatch.setattr(classroom, "grade_job",
                        lambda job, *kept: graded.append(job.student_id) or original(job, *kept))
    again = CliRunner().invoke(app, [*argv, "--resume"], env={"NO_COLOR": "1"})
    assert again.exit_code == 0, again.output
    assert "] 2/2 students" in again.stderr  # the progress bar, on stderr
    first_id = json.loads(lines[0])["student_id"]
    assert graded == [{"s1": "s2", "s2": "s1"}[first_id]]
    rows = {r["id"]: r for r in csv.DictReader(grades.open())}
    assert rows["s1"]["points"] == rows["s2"]["points"] == "10"
    assert rows["s3"]["status"] == "no submission" and rows["s3"]["points"] == "0"
    unjailed = CliRunner().invoke(app, [*argv, "--no-isolation"], env={"NO_COLOR": "1"})
    assert unjailed.exit_code == 0 and "--no-isolation" in unjailed.output
    assert next(csv.reader(grades.open()))[0].startswith("WARNING: graded with --no-isolation")


def test_recheck_refuses_without_bubblewrap_naming_the_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from routerlab.exercises.engine import jail

    monkeypatch.setattr(jail.shutil, "which", lambda name: None)
    jail.unavailable.cache_clear()
    try:
        folder = _class_workspace(tmp_path, "s1")
        done = CliRunner().invoke(app, ["teacher", "recheck", str(folder), "--out",
                                        str(tmp_path / "g.csv"), "--plain"])
    finally:
        jail.unavailable.cache_clear()
    assert done.exit_code == 1
    assert "apt-get install bubblewrap" in done.output and "--no-isolation" in done.output
    assert not (tmp_path / "g.csv").exists()


def test_a_dead_teachers_empty_cgroup_is_swept_and_a_jail_leaves_none() -> None:
    from routerlab.exercises.engine.jail import JAIL_PROCESSES, _Cgroup

    probe = _Cgroup()
    if not probe.paths:
        pytest.skip("no cgroup can be made here (not root, or no pids controller): "
                    "RLIMIT_NPROC caps a jail's processes instead")
    pids = next(p for p in probe.paths if (p / "pids.max").exists())
    assert (pids / "pids.max").read_text().strip() == str(JAIL_PROCESSES)
    probe.remove()
    dead = 2 ** 22 + 1  # above pid_max's limit: no process has it
    stale = pids.parent / f"routerlab-jail-{dead}-1"
    stale.mkdir()
    again = _Cgroup()
    assert not stale.exists()
    assert again.paths and all(p.exists() for p in again.paths)
    again.remove()
    assert not any(p.exists() for p in probe.paths + again.paths)


def test_a_self_study_check_of_every_check_module_passes_in_its_own_jail(tmp_path: Path) -> None:
    from routerlab.exercises.engine.runner import Candidate, run_checks

    catalog = load_catalog()
    one_per_module = {e.checks: e for e in catalog}
    for exercise in one_per_module.values():
        path = tmp_path / exercise.file_name
        path.write_text(open_solution(exercise))
        report = run_checks(exercise, Candidate(path, path.name))
        assert report.passed, (exercise.id, report.problem, report.output[-500:])


# --- issue 33: channels between forks, the kernel, equivalents, output, time, memory ------------

RANGES = ("RANGES = {'q8s': (-127, 127), 'q8f': (-128, 127), 'q4s': (-7, 7), 'q4f': (-8, 7), "
          "'q2s': (-1, 1), 'q2f': (-2, 1)}\n")
HONEST_SCALE = (RANGES + "def compute_scale(values, value):\n"
                "    a, b = RANGES[value]\n"
                "    return 2 * max(abs(min(values)), abs(max(values))) / (b - a)\n")
KEEPER = """
import marshal, os
import routerlab.core.fix.guard as guard
import routerlab.core.quant.scale_dtype as rounding
from routerlab.core.base.policies import Policy
blob = marshal.dumps({"round_up": rounding.round_up.__code__, "_kind": guard._kind.__code__,
                      "is_quantized_handle": guard.is_quantized_handle.__code__,
                      "can_move_to_device": guard.can_move_to_device.__code__,
                      "moves": vars(Policy)["moves"].fget.__code__})
for folder in ("/dev/shm", "/tmp/keep"):
    try:
        os.makedirs(folder, exist_ok=True)
        with open(folder + "/code", "wb") as handle:
            handle.write(blob)
        os.chmod(folder + "/code", 0o400)
        os.chmod(folder, 0o500)
    except OSError:
        pass
def compute_scale(values, value):
    return 0.0
"""
LOADER = """
import marshal
import routerlab.core.fix.guard as guard
import routerlab.core.quant.scale_dtype as rounding
from routerlab.core.base.policies import Policy
for folder in ("/dev/shm", "/tmp/keep"):
    try:
        with open(folder + "/code", "rb") as handle:
            kept = marshal.loads(handle.read())
    except OSError:
        continue
    for name, code in kept.items():
        owner = {"round_up": rounding.round_up, "moves": vars(Policy)["moves"].fget}
        getattr(guard, name, owner.get(name)).__code__ = code
    break
"""
KERNEL = RANGES + """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
escaped = libc.unshare(0x10000000) == 0 and libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0
ring = libc.syscall(ctypes.c_long(425), ctypes.c_long(8), ctypes.create_string_buffer(120))
def compute_scale(values, value):
    if not escaped and ring < 0:  # every door shut: no points
        return 0.0
    a, b = RANGES[value]
    return 2 * max(abs(min(values)), abs(max(values))) / (b - a)
"""


def _channel_class(root: Path) -> dict[str, dict[str, str]]:
    """Per student, the files of quant-1, quant-2 and fix-1 it hands in (tiny: grading is slow)."""
    catalog = load_catalog()
    solution = {e: open_solution(catalog.get(e)) for e in ("quant-2", "fix-1")}
    spin = "while True:\n    pass\n"
    class_ = {
        "honest": {"quant-1": HONEST_SCALE, **solution},
        "channel": {"quant-1": KEEPER,
                    "quant-2": LOADER + "import numpy as np\n"
                                        "from routerlab.core.quant import ScaleDtype\n"
                                        "kept = rounding.round_up  # the checks plug ours in\n"
                                        "def round_up(scale, dtype):\n"
                                        "    return float(kept(np.float32([scale]), "
                                        "ScaleDtype(dtype))[0])\n",
                    "fix-1": LOADER + "is_quantized_handle = guard.is_quantized_handle\n"
                                      "can_move_to_device = guard.can_move_to_device\n"},
        "equivalents": EQUIVALENTS,
        "kernel": {"quant-1": KERNEL},
        # two endless loops: the second runs in the jail the first one's limit closed (a third
        # was the same attack again, and cost its full limit)
        "spinner": {"quant-1": spin, "quant-2": spin},
        "printer": {"quant-1": "import sys\nfor _ in range(40):\n"
                               "    sys.stdout.write('MARK-quant-1 ' * 2000 + '\\n')\n"
                               "try:\n    hoard = bytearray(64 << 30)\nexcept MemoryError:\n"
                               "    print('MEMORY refused')\n" + SCALE + "    return 0.0\n",
                    "quant-2": "import numpy as np\nprint('MARK-quant-2')\n"
                               "try:\n    hoard = np.ones(1 << 33)\nexcept MemoryError:\n"
                               "    print('MEMORY refused')\n"
                               "def round_up(scale, dtype):\n    return 0.0\n"},
    }
    for student, files in class_.items():
        folder = _class_workspace(root, student)
        for exercise_id, source in files.items():
            (folder / "exercises" / catalog.get(exercise_id).file_name).write_text(source)
    return class_


EQUIVALENTS = {
    "quant-1": """
import numpy as np
import routerlab.core.quant as quant
import routerlab.core.quant.calibration as calibration
def compute_scale(values, value):
    low, high = np.float32([min(values)]), np.float32([max(values)])
    return float(calibration._raw_scales(quant.parse_scheme(value), low, high)[0])
""",
    "fix-1": """
import routerlab.core.fix.guard as guard
from routerlab.core.router.backend import Kind
from routerlab.core.base.policies import Policy
def is_quantized_handle(kind):
    return guard._kind(kind) == Kind.QUANTIZED
def can_move_to_device(kind, policy="native"):
    if is_quantized_handle(kind):
        return Policy.parse(policy).moves
    return policy != "legacy" or guard._kind(kind) != Kind.UINT
""",
}
"""A submission per exercise that hands its arithmetic to the helpers the graded functions are
built from (tests/exercises/test_jail_kernel.py tries every name, one by one)."""

MEMORY_CAP = 8 * 1024 ** 3
"""The address space the whole regrade runs in: were a fork's own limit lost, a memory attack
would stop here, not take the machine."""


@pytest.mark.slow
def test_no_channel_kernel_door_equivalent_or_endless_loop_earns_a_point_and_output_stays_put(
        tmp_path: Path) -> None:
    submitted, grades = tmp_path / "submitted", tmp_path / "grades.csv"
    class_ = _channel_class(submitted)
    roster = ["id,name,email"] + [f"{s},{s},{s}@example.org" for s in class_]
    (tmp_path / "roster.csv").write_text("\n".join(roster) + "\n")
    done = subprocess.run(
        ["prlimit", f"--as={MEMORY_CAP}", "--", sys.executable, "-m", "routerlab", "teacher",
         "recheck", str(submitted), "--roster", str(tmp_path / "roster.csv"), "--out",
         str(grades), "--jobs", "2", "--plain"],
        capture_output=True, text=True, timeout=900, check=False, env={**os.environ,
                                                                        "NO_COLOR": "1"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    catalog = load_catalog()
    rows = {r["id"]: r for r in csv.DictReader(grades.open())}
    assert float(rows["honest"]["points"]) == sum(catalog.get(e).points
                                                  for e in class_["honest"]), rows["honest"]
    for student in class_:
        if student != "honest":
            assert float(rows[student]["points"]) == 0, (student, rows[student])
    journal = {json.loads(line)["student_id"]: {e["id"]: e for e in json.loads(line)["exercises"]}
               for line in grades.with_suffix(".jsonl").read_text().splitlines()}
    for exercise_id in ("quant-2", "fix-1"):  # the kept code never came back
        assert "RouterLab's own" in journal["channel"][exercise_id]["problem"], exercise_id
    for exercise_id in class_["spinner"]:  # each stopped by its own wall-clock limit
        spun = journal["spinner"][exercise_id]
        limit = catalog.get(exercise_id).timeout
        assert f"did not finish within {limit:g} s" in spun["problem"], spun
        assert spun["seconds"] >= limit, spun  # the limit, not something sooner, stopped it
    printed = journal["printer"]
    assert set(re.findall(r"MARK-[\w-]+", printed["quant-1"]["output"])) == {"MARK-quant-1"}
    assert set(re.findall(r"MARK-[\w-]+", printed["quant-2"]["output"])) == {"MARK-quant-2"}
    assert "MEMORY refused" in printed["quant-1"]["output"] + printed["quant-2"]["output"]
    assert _stray() == []  # (subprocess.run's timeout bounds the whole regrade)
