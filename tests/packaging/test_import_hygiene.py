"""The core knows nothing of the faces or of optional packages, and the CLI starts light.

Each check runs in a fresh interpreter, because this test process has imported everything.
"""

from __future__ import annotations

import json
import subprocess
import sys

FACE_AND_OPTIONAL = ["typer", "click", "rich", "IPython", "ipywidgets", "matplotlib", "cupy",
                     "nbformat", "nbclient"]


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=120)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_every_core_module_imports_without_faces_or_optional_packages() -> None:
    loaded = _modules_after(
        "import pkgutil, importlib, routerlab.core as c\n"
        "for m in pkgutil.walk_packages(c.__path__, 'routerlab.core.'):\n"
        "    importlib.import_module(m.name)"
    )
    leaked = {m.split(".")[0] for m in loaded} & set(FACE_AND_OPTIONAL)
    assert not leaked, f"routerlab.core imports {sorted(leaked)} at import time"


def test_cli_app_import_does_not_load_numpy_or_the_core_model() -> None:
    loaded = _modules_after("import routerlab.cli.app")
    heavy = {m for m in loaded if m.split(".")[0] in {"numpy", "cupy", "matplotlib", "nbformat"}}
    assert not heavy, f"`routerlab --help` would import {sorted(heavy)[:5]}"


def test_the_public_api_is_one_list() -> None:
    """`routerlab.core` names each public name three times (lazy map, type-checker imports,
    `__all__`); they must agree, and every name must load."""
    import ast
    from pathlib import Path

    import routerlab.core as core

    tree = ast.parse(Path(core.__file__).read_text(encoding="utf-8"))
    checked = {alias.name for node in ast.walk(tree) if isinstance(node, ast.If)
               for inner in node.body if isinstance(inner, ast.ImportFrom)
               for alias in inner.names}
    assert sorted(core.__all__) == sorted(core._LAZY) == sorted(checked)
    assert all(getattr(core, name) is not None for name in core.__all__)
