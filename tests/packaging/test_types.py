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


def test_the_models_public_names_are_one_list_for_the_loader_and_the_type_checker() -> None:
    """`routerlab.core` loads each public name from its table on first use; a type checker reads
    the imports under `TYPE_CHECKING` instead. Both must name the same names, from the same
    modules, each re-exported as `X as X` (what `mypy --strict` takes as an export)."""
    import ast

    import routerlab.core as core

    tree = ast.parse((ROOT / "core" / "__init__.py").read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If))
    typed: dict[str, tuple[str, ...]] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.module is not None
        assert all(alias.asname == alias.name for alias in node.names), node.module
        typed[node.module] = tuple(alias.name for alias in node.names)
    assert typed == core._PUBLIC
    assert core.__all__ == sorted(name for names in typed.values() for name in names)
    for name in core.__all__:
        assert getattr(core, name) is not None, name
