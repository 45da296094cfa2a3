"""The whole `routerlab` package type-checks with mypy, as configured in pyproject.toml.

setup.py assembles `routerlab` from several top-level folders (`src/routerlab`, `core/`, `cli/`,
`exercises/`), and the editable install reaches them through an import finder mypy cannot follow.
So the test lays the package out as installed, with symlinks in a temporary folder, and runs mypy
there with a fresh cache (what CI gets: a cold run, about ten seconds).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _mapped_folders() -> dict[str, str]:
    """setup.py's `MAPPED` (package name -> folder), read without running setup.py."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "MAPPED" for t in node.targets):
            mapped: dict[str, str] = ast.literal_eval(node.value)
            return mapped
    raise AssertionError("setup.py has no MAPPED = {...} assignment")


def _symlink_tree(base: Path) -> None:
    """`routerlab/` under `base`: the top package's files, and one link per mapped sub-package."""
    mapped = _mapped_folders()
    top = base / "routerlab"
    top.mkdir()
    for entry in sorted((ROOT / mapped.pop("routerlab")).iterdir()):
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry)
    for name, folder in mapped.items():
        parent, _, leaf = name.rpartition(".")
        assert parent == "routerlab", f"{name}: only direct sub-packages are mapped"
        (top / leaf).symlink_to(ROOT / folder, target_is_directory=True)


def test_mypy_finds_no_errors(tmp_path: Path) -> None:
    _symlink_tree(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(tmp_path / ".mypy_cache"), "-p", "routerlab"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"mypy failed:\n{result.stdout}{result.stderr}"
