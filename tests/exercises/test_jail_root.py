"""A jail that is safe when the teacher is root (issue 37 §1).

Root starts bubblewrap in a container, a CI job, a cloud VM (this machine too). Such a jail was
the host's root (`/proc/self/uid_map` `0 0 1`) and could write `/proc/sys`. Here a student's
file tries what a fork may not do (write the kernel's control files, raise the warm host's OOM
score, read the host's load and the warm host's command line) and prints what it found, next to
an honest control whose points must not move; the jail's own self-test is shown to refuse a jail
that fails it; and the self-test is run again as an ordinary user (`nobody`), where the machine
has one that can run Python.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.engine import jail as jail_module
from routerlab.exercises.engine.jail import Jail, confinement_problems, unavailable
from routerlab.exercises.engine.jail_image import build_image, graded_targets
from routerlab.exercises.engine.runner import Candidate, run_checks
from routerlab.exercises.learner.workspace import MARKER, init_workspace
from routerlab.exercises.report import CheckReport

CATALOG = load_catalog()
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the teacher is not root here")

PROBE = '''
import json, os
seen = {"uid": os.getuid(), "uid_map": open("/proc/self/uid_map").read().split()}
for path in ("/proc/sys/vm/drop_caches", "/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger",
             "/proc/1/oom_score_adj"):
    try:
        with open(path, "w") as handle:
            handle.write("3" if "drop" in path else "0")
        seen[path] = "written"
    except OSError as error:
        seen[path] = error.strerror
for path in ("/proc/loadavg", "/proc/1/cmdline"):
    try:
        seen[path] = open(path, "rb").read().decode(errors="replace") or "empty"
    except OSError as error:
        seen[path] = error.strerror
print("SEEN", json.dumps(seen))

def compute_scale(values, value):
    return 0.0
'''


@pytest.fixture(scope="module")
def jail() -> Iterator[Jail]:
    if unavailable() is not None:
        pytest.skip(str(unavailable()))
    with Jail(build_image(frozenset(graded_targets(CATALOG))), ["quant"]) as one:
        yield one


def _grade(jail: Jail, folder: Path, source: str) -> CheckReport:
    exercise = CATALOG.get("quant-1")
    path = folder / exercise.file_name
    path.write_text(source)
    return run_checks(exercise, Candidate(path, path.name), jail=jail)


def test_a_fork_writes_no_kernel_control_file_and_reads_neither_load_nor_the_host(
        jail: Jail, tmp_path: Path) -> None:
    report = _grade(jail, tmp_path, PROBE)
    found = re.search(r"SEEN (.*)", report.output)
    assert found, (report.problem, report.output[-2000:])
    seen = json.loads(found.group(1))
    inside, outside = int(seen["uid_map"][0]), int(seen["uid_map"][1])
    host_uid = outside + seen["uid"] - inside
    assert host_uid != 0, seen  # never the host's root, whoever the teacher is
    if os.geteuid() == 0:
        assert host_uid == jail_module._jail_user()[0]  # type: ignore[index]
    for path in ("/proc/sys/vm/drop_caches", "/proc/sys/kernel/core_pattern",
                 "/proc/sysrq-trigger", "/proc/1/oom_score_adj"):
        assert seen[path] != "written", (path, seen)
    for path in ("/proc/loadavg", "/proc/1/cmdline"):
        assert seen[path] == "Permission denied", (path, seen)
    assert "jailhost" not in report.output and sys.base_prefix not in report.output
    assert report.passed is False  # the probe's scale is wrong: it earns nothing

    honest = _grade(jail, tmp_path, open_solution(CATALOG.get("quant-1")))
    assert honest.passed, (honest.problem, [o.message for o in honest.outcomes if not o.ok])


def test_the_self_test_names_every_freedom_a_fork_must_not_have() -> None:
    safe = {"uid": 65534, "host_uid": 65534, "capabilities": 0, "no_new_privs": True,
            "writable": [], "readable": []}
    assert confinement_problems(json.dumps(safe).encode(), 65534) == []
    root = {**safe, "uid": 0, "host_uid": 0, "capabilities": 192,
            "writable": ["/proc/sys/kernel/core_pattern"], "readable": ["/proc/1/cmdline"]}
    problems = confinement_problems(json.dumps(root).encode(), 0)
    assert problems == ["student code runs as host uid 0", "student code holds capabilities",
                        "student code can write /proc/sys/kernel/core_pattern",
                        "student code can read /proc/1/cmdline"]
    assert confinement_problems(json.dumps(safe).encode(), 1000) == [
        "student code runs as host uid 65534"]  # not the user it was meant to run as
    assert confinement_problems(b"", 65534) == ["its self-test said nothing readable"]


@ROOT_ONLY
def test_a_root_jail_that_keeps_root_fails_its_self_test_and_recheck_grades_nobody(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The jail as it was before this fix (root's jail left as root): the self-test sees it,
    and `recheck` refuses in one line, exit 1, writing no grades, while the honest workspace beside
    it is graded in full once the jail is safe again."""
    if jail_module.bwrap() is None:
        pytest.skip("bubblewrap is not installed")
    folder = init_workspace(tmp_path / "s1", "student s1")[0].root
    marker = folder / MARKER
    marker.write_text(marker.read_text() + 'student_id = "s1"\n')
    argv = ["teacher", "recheck", str(folder), "--out", str(tmp_path / "g.csv"), "--plain"]
    monkeypatch.setattr(jail_module, "_jail_user", lambda: None)
    jail_module.unavailable.cache_clear()
    try:
        why = unavailable()
        refused = CliRunner().invoke(app, argv, env={"NO_COLOR": "1"})
    finally:
        monkeypatch.undo()
        jail_module.unavailable.cache_clear()
    assert why is not None and "not safe" in why and "host uid 0" in why, why
    assert refused.exit_code == 1, refused.output
    assert "not safe on this machine" in refused.output and "Traceback" not in refused.output
    assert not (tmp_path / "g.csv").exists()
    assert unavailable() is None  # the real jail passes its self-test


def _ordinary_python() -> str | None:
    """A Python an ordinary user can run (the default one may live under root's 0700 home)."""
    for candidate in ("/usr/bin/python3.11", "/usr/bin/python3"):
        if os.path.exists(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


@ROOT_ONLY
def test_as_an_ordinary_user_the_jail_passes_its_self_test_as_that_user() -> None:
    python, runuser = _ordinary_python(), shutil.which("runuser")
    if python is None or runuser is None or jail_module.bwrap() is None:
        pytest.skip("no Python an ordinary user can run, no runuser, or no bubblewrap")
    package = Path(jail_module.__file__).resolve().parents[2]
    if not all(os.access(p, os.R_OK | os.X_OK) for p in (package, *package.parents)
               if p != Path("/")):
        pytest.skip(f"{package} is not readable by an ordinary user")
    path = Path(tempfile.mkdtemp(prefix="routerlab-ordinary-", dir="/tmp"))  # pytest's: 0700
    os.chmod(path, 0o755)
    (path / "routerlab").symlink_to(package)
    code = ("import json, os, sys; sys.path.insert(0, sys.argv[1]);"
            "from routerlab.exercises.engine import jail;"
            "print(json.dumps([os.getuid(), jail.unavailable(), jail._jail_user()]))")
    try:
        done = subprocess.run([runuser, "-u", "nobody", "--", python, "-I", "-c", code,
                               str(path)], capture_output=True, text=True, timeout=120,
                              check=False)
    finally:
        shutil.rmtree(path)
    if done.returncode and "ModuleNotFoundError" in done.stderr:
        pytest.skip(f"{python} lacks a module RouterLab's jail needs: "
                    f"{done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    uid, why, user = json.loads(done.stdout.strip().splitlines()[-1])
    assert uid != 0 and user is None
    if why is not None and "cannot run a jail here" in why:
        pytest.skip(f"bubblewrap refuses an ordinary user here: {why}")
    assert why is None, why  # the self-test ran as that user and found the jail safe


def test_an_image_pruned_while_the_class_is_graded_is_built_again(tmp_path: Path) -> None:
    """Another RouterLab's build prunes the cache (it keeps the four images used last): the
    next jail builds its image again instead of failing to start, and the student is graded."""
    if unavailable() is not None:
        pytest.skip(str(unavailable()))
    image = build_image(frozenset(graded_targets(CATALOG)), tmp_path / "cache")
    exercise = CATALOG.get("quant-1")
    with Jail(image, ["quant"], warm=False) as one:
        shutil.rmtree(image.root.parent)  # what `_prune` does to an image it does not keep
        one.close()  # the next exercise starts a jail
        report = _grade(one, tmp_path, open_solution(exercise))
        assert one.broken is None and report.passed, (report.problem, one.broken)
        assert one.image.root.is_dir()
