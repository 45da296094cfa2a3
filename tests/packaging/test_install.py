"""RouterLab installs as one distribution whose only top-level import package is `routerlab`,
both editable (how `./run` installs it) and as a wheel in a fresh virtual environment."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(*argv: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=600)


def _top_level_names(site_packages: Path) -> set[str]:
    return {p.name for p in site_packages.iterdir()}


def test_editable_install_runs_doctor_and_module_entry(tmp_path: Path) -> None:
    # Run from a neutral folder so that the repository root is not on sys.path.
    doctor = _run(BIN / "routerlab", "doctor", cwd=tmp_path)
    assert doctor.returncode == 0, doctor.stderr
    assert "numpy" in doctor.stdout and "cupy / GPU" in doctor.stdout
    version = _run(sys.executable, "-m", "routerlab", "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("routerlab ")


def test_editable_install_puts_no_bare_core_or_cli_on_site_packages() -> None:
    names = _top_level_names(Path(sysconfig.get_paths()["purelib"]))
    assert not {"core", "cli", "exercises"} & names
    probe = _run(sys.executable, "-c", "import importlib.util as u; print(u.find_spec('core'),"
                 " u.find_spec('cli'))", cwd=Path("/"))
    assert probe.stdout.split() == ["None", "None"]


def _clean_copy(target: Path) -> Path:
    """The source tree without build leftovers: a stale `build/lib` in the checkout could
    otherwise ship a module that no longer exists."""
    leftovers = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                                       "__pycache__", "test-artifacts", ".hypothesis")
    shutil.copytree(ROOT, target, ignore=leftovers)
    return target


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_runs_doctor(tmp_path: Path) -> None:
    source = _clean_copy(tmp_path / "src")
    built = _run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                 tmp_path / "dist", source)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "dist").glob("routerlab-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"routerlab"}, f"wheel ships top-level entries {tops}"
    assert "routerlab/core/__init__.py" in names and "routerlab/cli/app.py" in names
    assert {"routerlab/present/html.py", "routerlab/notebook/plots.py",
            "routerlab/exercises/catalog/index.toml", "routerlab/py.typed"} <= set(names)
    # the checkout is the package: only its layers ship, not the files and folders beside them
    assert not [n for n in names if n.startswith(("routerlab/setup.py", "routerlab/tests/",
                                                  "routerlab/benchmarks/", "routerlab/run"))]

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    env_bin = env_dir / "bin"
    installed = _run(env_bin / "python", "-m", "pip", "install", "-q",
                     "--disable-pip-version-check", wheel)
    assert installed.returncode == 0, installed.stderr
    doctor = _run(env_bin / "routerlab", "doctor", "--json", cwd=tmp_path)
    assert doctor.returncode == 0, doctor.stderr
    assert '"name": "numpy"' in doctor.stdout
    site = Path(_run(env_bin / "python", "-c", "import sysconfig;"
                     "print(sysconfig.get_paths()['purelib'])").stdout.strip())
    assert not {"core", "cli", "exercises"} & _top_level_names(site)
