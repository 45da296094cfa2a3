"""The whole `routerlab` package type-checks with mypy, as configured in pyproject.toml, on the
tree as it is.

The checkout's root is the package (setup.py) and every import inside it is relative, so mypy
reads it straight from disk: given a folder holding `__init__.py`, it takes the folder as one
package named after the folder, and skips what pyproject.toml excludes. A checkout's folder can
have any name (`wt-2`, `repo.git`), and mypy refuses one that is no identifier, so the test names
it `routerlab` with one link in a temporary folder; nothing is copied or rearranged. A fresh
cache is used: what CI gets, a cold run of about ten seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_finds_no_errors(tmp_path: Path) -> None:
    (tmp_path / "routerlab").symlink_to(ROOT, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(tmp_path / ".mypy_cache"), "routerlab"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"mypy failed:\n{result.stdout}{result.stderr}"
    checked = int(result.stdout.split(" in ")[-1].split()[0])
    assert checked > 150, result.stdout  # the layers, not only the root's two files
