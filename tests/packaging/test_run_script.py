"""`./run`, the README's entry point: it reinstalls only when needed."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _load_run():
    loader = importlib.machinery.SourceFileLoader("routerlab_run_script", str(ROOT / "run"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_an_install_with_more_extras_serves_a_command_needing_fewer() -> None:
    run = _load_run()
    stamps = ["test,notebooks:abc"]
    assert run._installed(stamps, "", "abc")
    assert run._installed(stamps, "notebooks", "abc")
    assert run._installed(stamps, "test,notebooks", "abc")
    assert not run._installed(stamps, "gpu", "abc")
    assert not run._installed(stamps, "", "changed")  # pyproject.toml or setup.py changed
    assert not run._installed([], "", "abc")


def test_the_digest_follows_the_project_files() -> None:
    run = _load_run()
    assert run._digest() == run._digest() and len(run._digest()) == 16


def test_run_refuses_an_old_python_with_one_line() -> None:
    """The version check is the first thing `ensure_venv` does; exercised with a fake version."""
    code = ("import sys, importlib.machinery as m, importlib.util as u;"
            f"l=m.SourceFileLoader('r', {str(ROOT / 'run')!r});"
            "s=u.spec_from_loader('r', l); r=u.module_from_spec(s); l.exec_module(r);"
            "sys.version_info=(3, 10, 0); r.ensure_venv('')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().startswith("RouterLab needs Python 3.11 or newer")


def test_run_resolves_a_relative_path_from_the_callers_folder(tmp_path: Path) -> None:
    """`<checkout>/run simulate mine.toml` typed in another folder reads that folder's file
    (the `.venv` is already set up by the `./run test` that runs this)."""
    (tmp_path / "mine.toml").write_text((ROOT / "scenarios" / "move-unique.toml").read_text()
                                        .replace("A unique tensor moves", "My own tensor moves"))
    done = subprocess.run([sys.executable, str(ROOT / "run"), "simulate", "mine.toml", "--plain"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "My own tensor moves" in done.stdout


def test_the_suite_runs_two_workers_a_core_and_prints_the_25_slowest() -> None:
    """`./run test` without arguments: pytest-xdist, two workers a core (at most 16), a module's
    tests on one worker (tests/conftest.py's scheduler), the 25 slowest tests printed."""
    run = _load_run()
    assert run.SUITE_WORKERS == min(2 * len(os.sched_getaffinity(0)), 16)
    assert run.SUITE_ARGS == ["-n", str(run.SUITE_WORKERS), "--dist", "loadscope",
                              "--durations=25"]


def _load_conftest() -> Any:
    loader = importlib.machinery.SourceFileLoader("routerlab_tests_conftest",
                                                  str(ROOT / "tests" / "conftest.py"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    conftest = importlib.util.module_from_spec(spec)
    loader.exec_module(conftest)
    return conftest


def test_every_alone_module_shares_one_scope_and_the_others_keep_their_own(tmp_path: Path) -> None:
    """The scheduler's scope: `alone` for every test of a module marked `alone`, xdist's own
    (None) for the rest, read from the module itself."""
    conftest = _load_conftest()
    assert conftest.scope_of(ROOT, "tests/notebooks/test_browser.py::test_x[00-welcome]") == (
        "alone")
    assert conftest.scope_of(ROOT, "tests/exercises/test_jail.py::test_y") == "alone"
    assert conftest.scope_of(ROOT, "tests/quant/test_scheme.py::test_z") is None
    (tmp_path / "test_new.py").write_text("import pytest\npytestmark = pytest.mark.alone\n")
    assert conftest.scope_of(tmp_path, "test_new.py::test_w") == "alone"
    assert conftest.scope_of(tmp_path, "test_gone.py::test_v") is None


def test_the_alone_tests_are_marked_and_selected_by_their_marker() -> None:
    """The browser, the demo hub, the Dask cluster and the jail modules are `alone`, and
    `-m alone` selects those and nothing else."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-m", "alone",
                           "tests/hub/test_demo_hub.py", "tests/quant/test_scheme.py"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    listed = [line for line in done.stdout.splitlines() if "::" in line]
    assert listed and all(line.startswith("tests/hub/test_demo_hub.py") for line in listed)
    for module in ("tests/notebooks/test_browser.py", "tests/exercises/test_feedback_browser.py",
                   "tests/hub/test_demo_hub.py", "tests/hub/test_dask.py",
                   "tests/exercises/test_jail.py", "tests/exercises/test_jail_kernel.py"):
        assert "pytest.mark.alone" in (ROOT / module).read_text(encoding="utf-8"), module


def test_the_longest_work_is_handed_out_first(tmp_path: Path) -> None:
    """The workers' order: the `alone` modules, then a module with a test marked `slow`, then
    the rest by their number of tests, most first."""
    sources = {"test_a.py": "", "test_b.py": "", "test_slow.py": "@pytest.mark.slow\n",
               "test_alone.py": "pytestmark = pytest.mark.alone\n"}
    for name, text in sources.items():
        (tmp_path / name).write_text("import pytest\n" + text)
    items = [tmp_path / n for n in ("test_a.py", "test_b.py", "test_b.py", "test_slow.py",
                                    "test_alone.py")]
    order = _load_conftest().first_order(items)
    assert sorted(order, key=order.__getitem__) == [
        tmp_path / n for n in ("test_alone.py", "test_slow.py", "test_b.py", "test_a.py")]
