"""Shared pieces of the notebook tests: where the notebooks are, and a kernel that is this venv.

`nbformat` and `nbclient` cost seconds to import, so only the tests that execute notebooks import
them, inside the test functions.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent))  # `expectations` and `notebook_counts`, shared
NOTEBOOK_DIR = ROOT / "notebooks"
ARTIFACTS = ROOT / "test-artifacts"
SERIES = sorted(path.stem for path in NOTEBOOK_DIR.glob("[0-9][0-9]-*.ipynb"))
"""The guided series, in order: every `notebooks/NN-name.ipynb` (a new notebook joins by being
there; `test_structure.py` checks the numbering and `expectations.py` must have its row)."""
KERNEL_NAME = "routerlab-test-venv"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that takes `notebook_path` runs once per notebook of the series, in order."""
    if "notebook_path" in metafunc.fixturenames:
        paths = [NOTEBOOK_DIR / f"{name}.ipynb" for name in SERIES]
        metafunc.parametrize("notebook_path", paths, ids=SERIES)


@pytest.fixture(scope="session")
def series() -> list[str]:
    return list(SERIES)


@pytest.fixture(scope="session")
def notebook_dir() -> Path:
    return NOTEBOOK_DIR


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def pyplot(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """matplotlib on the Agg backend, its rcParams restored after the test."""
    matplotlib = pytest.importorskip("matplotlib")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    import matplotlib.pyplot as plt

    with matplotlib.rc_context():
        yield plt
    plt.close("all")


@pytest.fixture(scope="session")
def venv_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A kernelspec whose argv is *this* interpreter (the .venv's python in CI), found first;
    also sets JUPYTER_PATH / JUPYTER_RUNTIME_DIR for child processes (JupyterLab).

    A bare `python3` kernelspec could resolve to another Python on the machine; naming
    `sys.executable` makes the executed notebooks import the routerlab under test.
    """
    root = tmp_path_factory.mktemp("jupyter")
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (RouterLab test venv)", "language": "python"}
    # Our name for nbclient, and `python3` (the notebooks' kernelspec) for JupyterLab in the
    # browser test: JUPYTER_PATH is searched before the user's and the system's kernel folders.
    for name in (KERNEL_NAME, "python3"):
        (root / "kernels" / name).mkdir(parents=True)
        (root / "kernels" / name / "kernel.json").write_text(json.dumps(spec))
    saved = {k: os.environ.get(k) for k in ("JUPYTER_PATH", "JUPYTER_RUNTIME_DIR")}
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(root), saved["JUPYTER_PATH"]]))
    os.environ["JUPYTER_RUNTIME_DIR"] = str(root / "runtime")
    try:
        yield KERNEL_NAME
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
