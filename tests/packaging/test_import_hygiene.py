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
    """`routerlab.core` names each public name once, in the type checker's imports; `__all__`
    and the lazy loader are read from them, and every name loads from the module named."""
    import ast
    from pathlib import Path

    import routerlab.core as core

    tree = ast.parse(Path(core.__file__).read_text(encoding="utf-8"))
    imports = [node for node in ast.walk(tree) if isinstance(node, ast.If)
               for node in node.body if isinstance(node, ast.ImportFrom)]
    checked = [alias.name for node in imports for alias in node.names]
    assert len(checked) == len(set(checked)) > 80
    assert core.__all__ == sorted(checked)
    assert "Runtime" not in core.__dict__ or core.__dict__["Runtime"] is core.Runtime
    for node in imports:
        module = __import__(f"routerlab.core.{node.module}", fromlist=["_"])
        assert all(getattr(core, a.name) is getattr(module, a.name) for a in node.names)
    assert not hasattr(core, "_EXPORTS") and not hasattr(core, "_LAZY")
