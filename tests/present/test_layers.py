"""What the import contracts (`.importlinter`, tests/packaging/test_contracts.py) cannot say: the
faces and the notebooks reach the model only through its public API; the model's views carry no
renderer; the HTML and text renderers, and the notebook helpers, load without rich."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from routerlab.core.base.view import TableView, Viewable

ROOT = Path(__file__).resolve().parents[2]
def _package_of(path: Path) -> list[str]:
    """The package a file of the checkout belongs to (the checkout's root is `routerlab`)."""
    try:
        parts = path.resolve().relative_to(ROOT).parent.parts
    except ValueError:  # a file outside the checkout: a test's own sample
        parts = ()
    return ["routerlab", *parts]


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function, relative ones resolved."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = _package_of(path)[: len(_package_of(path)) - node.level + 1]
            if node.module:
                found.add(".".join([*base, node.module]))
            else:
                found |= {".".join([*base, alias.name]) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_the_scan_sees_a_lazy_import(tmp_path: Path) -> None:
    module = tmp_path / "lazy.py"
    module.write_text("def f():\n    from routerlab.present.html import table\n")
    assert "routerlab.present.html" in _imports(module)


def test_core_views_carry_no_renderer() -> None:
    for cls in (TableView, Viewable):
        assert not [name for name in dir(cls) if name.startswith("_repr_")], cls


def test_html_text_and_the_notebook_helpers_load_without_rich() -> None:
    probe = ("import routerlab.present.html, routerlab.present.text, routerlab.notebook\n"
             "import sys, json\nprint(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=120)
    loaded = {m.split(".")[0] for m in json.loads(out.stdout.strip().splitlines()[-1])}
    assert not loaded & {"rich", "IPython", "ipywidgets", "matplotlib"}


PUBLIC_MODEL = {"routerlab.core", "routerlab.core.quant", "routerlab.core.scenario",
                "routerlab.core.fix", "routerlab.core.base.limits", "routerlab.core.base.safe_io",
                "routerlab.core.remote", "routerlab.core.serving", "routerlab.core.wire"}
"""The model's public API: `routerlab.core` and the packages it documents
(docs/ARCHITECTURE.md). Everything else under `routerlab.core` is its inside."""
FACES = ("cli", "exercises", "notebook", "teaching", "present")


BESIDE_THE_MODEL = "build_"
"""The build track's checks (`exercises/checks/build_*.py`) put the model's own router classes
beside the learner's, class for class (docs/exercises.md, "The build track"): they name the
modules those classes live in, and are the one face that may."""


def _face_files() -> list[Path]:
    return [p for face in FACES for p in (ROOT / face).rglob("*.py")
            if "catalog" not in p.parts  # student starters and solutions are the learner's
            and not (p.parent.name == "checks" and p.name.startswith(BESIDE_THE_MODEL))]


def _notebook_imports(path: Path) -> set[str]:
    found = set()
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            found |= {node.module for node in ast.walk(ast.parse(source))
                      if isinstance(node, ast.ImportFrom) and node.module}
    return found


def test_faces_reach_the_model_only_through_its_public_api() -> None:
    inside = {f"{path.relative_to(ROOT)}: {module}"
              for path in _face_files() for module in _imports(path)
              if module.startswith("routerlab.core") and module not in PUBLIC_MODEL}
    inside |= {f"{path.name}: {module}" for path in sorted((ROOT / "notebooks").glob("*.ipynb"))
               for module in _notebook_imports(path)
               if module.startswith("routerlab.core") and module not in PUBLIC_MODEL}
    assert not inside, sorted(inside)


def test_the_face_scan_sees_what_it_must(tmp_path: Path) -> None:
    bad = tmp_path / "face.py"
    bad.write_text("def f():\n"
                   "    from routerlab.core.router.interpreter import TensorInterpreter\n")
    assert "routerlab.core.router.interpreter" in _imports(bad)
    assert len(_face_files()) > 40 and (ROOT / "cli" / "app.py") in _face_files()
