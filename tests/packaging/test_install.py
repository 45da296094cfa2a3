"""RouterLab installs as one distribution whose only top-level import package is `routerlab`,
both editable (how `./run` installs it) and as a wheel in a fresh virtual environment."""

from __future__ import annotations

import os
import re
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


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a clean copy of this checkout (once for the module)."""
    work = tmp_path_factory.mktemp("wheel")
    source = _clean_copy(work / "src")
    built = _run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                 work / "dist", source)
    assert built.returncode == 0, built.stdout + built.stderr
    (found,) = (work / "dist").glob("routerlab-*.whl")
    return found


@pytest.mark.slow
def test_the_wheel_is_the_package_with_its_notebooks_scenarios_and_docs(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"routerlab"}, f"wheel ships top-level entries {tops}"
    assert "routerlab/core/__init__.py" in names and "routerlab/cli/app.py" in names
    assert {"routerlab/present/html.py", "routerlab/notebook/plots.py", "routerlab/shipped.py",
            "routerlab/exercises/catalog/index.toml", "routerlab/py.typed"} <= names
    # the checkout is the package: its layers and its shipped data, not the rest beside them
    assert not [n for n in names if n.startswith(("routerlab/setup.py", "routerlab/tests/",
                                                  "routerlab/benchmarks/", "routerlab/run"))]
    shipped = {f"routerlab/{p.relative_to(ROOT).as_posix()}"
               for pattern in ("notebooks/*.ipynb", "scenarios/**/*.toml", "docs/*.md")
               for p in ROOT.glob(pattern)}
    assert shipped <= names, sorted(shipped - names)
    linked = {f"routerlab/docs/{name}" for nb in ROOT.glob("notebooks/*.ipynb")
              for name in re.findall(r"\.\./docs/([\w-]+\.md)", nb.read_text())}
    assert linked and linked <= names, sorted(linked - names)


def _fresh_venv(where: Path, wheel: Path) -> Path:
    """A new virtual environment holding the wheel and nothing of the checkout: installed with
    --no-deps (offline), its dependencies read from this interpreter's site-packages through a
    .pth line (a plain path: the editable install's finder there is never run)."""
    venv.EnvBuilder(with_pip=False).create(where)
    python = where / "bin" / "python"
    site = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
                .stdout.strip())
    here = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "zz_routerlab_test_deps.pth").write_text("\n".join(sorted(here)) + "\n")
    installed = _run(sys.executable, "-m", "pip", "--python", python, "install", "-q",
                     "--no-deps", "--no-index", "--disable-pip-version-check", wheel)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return where / "bin"


@pytest.mark.slow
def test_the_installed_wheel_is_a_whole_routerlab_in_an_empty_folder(wheel: Path,
                                                                     tmp_path: Path) -> None:
    """The README's promise for `pip install`: with no checkout anywhere on the path, a shipped
    scenario runs by its name, `lab` copies the notebooks and docs into the workspace, the
    exercises start and check, and `teacher quickstart` makes a sample course."""
    bin_dir = _fresh_venv(tmp_path / "venv", wheel)
    empty, home = tmp_path / "empty", tmp_path / "home"
    empty.mkdir()
    home.mkdir()
    keep = {"LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT"}
    env = {**{k: v for k, v in os.environ.items() if k in keep}, "HOME": str(home),
           "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", "NO_COLOR": "1",
           "COLUMNS": "100"}

    def routerlab(*argv: str | Path, cwd: Path = empty) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(bin_dir / "routerlab"), *map(str, argv)], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300)

    where = subprocess.run([str(bin_dir / "python"), "-c", "import routerlab, routerlab.shipped as "
                            "s; print(routerlab.__file__); print(s.folder('notebooks'))"],
                           cwd=empty, env=env, capture_output=True, text=True, timeout=60)
    assert where.returncode == 0, where.stderr
    assert all(Path(line).is_relative_to(tmp_path / "venv") for line in where.stdout.split())
    assert not any(Path(line).is_relative_to(ROOT) for line in where.stdout.split())

    listed = routerlab("simulate", "--list")
    assert listed.returncode == 0, listed.stderr
    assert {"shared-add", "peers/kill-mid-transfer"} <= {
        line.split()[0] for line in listed.stdout.splitlines()}
    for scenario in ("shared-add", "scenarios/shared-add.toml"):
        ran = routerlab("simulate", scenario, "--plain")
        assert ran.returncode == 0, ran.stderr
        assert "A float add with a shared input" in ran.stdout and "Step 3" in ran.stdout
    assert routerlab("validate", "quantized-local").returncode == 0

    copied = routerlab("lab", "--dir", "ws", "--no-start")
    assert copied.returncode == 0, copied.stderr
    notebooks = sorted(p.name for p in (empty / "ws" / "notebooks").glob("*.ipynb"))
    assert notebooks == sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert (empty / "ws" / "docs" / "transfers.md").read_text() == (
        ROOT / "docs" / "transfers.md").read_text()
    assert str(tmp_path / "venv") in copied.stdout
    dry = routerlab("lab", "--dir", "ws", "--dry-run")
    assert dry.returncode == 0 and "Command: " in dry.stdout, dry.stderr

    init = routerlab("exercises", "init", "class", "--student", "Ada")
    assert init.returncode == 0, init.stderr
    assert "&& routerlab exercises check" in init.stdout  # on PATH here: the short name
    check = routerlab("exercises", "check", cwd=empty / "class")
    assert check.returncode == 1, check.stdout + check.stderr  # a starter fails its checks
    assert "Edit exercises/" in check.stdout and "Traceback" not in check.stderr
    doctor = routerlab("doctor", "--json")
    assert doctor.returncode == 0 and '"name": "numpy"' in doctor.stdout, doctor.stderr
    sample = routerlab("teacher", "quickstart", "course", "--plain")
    assert sample.returncode == 0, sample.stderr
    assert "routerlab teacher recheck" in sample.stdout  # the commands, as typed here
    assert (empty / "course" / "release" / "course.toml").is_file()
    assert len(list((empty / "course" / "submitted").iterdir())) == 3
    site = Path(_run(bin_dir / "python", "-c", "import sysconfig;"
                     "print(sysconfig.get_paths()['purelib'])").stdout.strip())
    assert not {"core", "cli", "exercises"} & _top_level_names(site)
