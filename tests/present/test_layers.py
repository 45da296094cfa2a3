"""The presentation layer sits above the model: the core holds data and imports no renderer, not
even lazily; the HTML and text renderers, and the notebook helpers, load without rich."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from routerlab.core.view import TableView, Viewable

ROOT = Path(__file__).resolve().parents[2]
PRESENTATION = ("routerlab.present", "routerlab.notebook", "routerlab.cli", "rich", "IPython",
                "ipywidgets", "matplotlib")


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_no_core_module_imports_presentation_code_even_lazily() -> None:
    offenders = {}
    for path in sorted((ROOT / "core").rglob("*.py")):
        bad = {m for m in _imports(path) if m.split(".")[0] in PRESENTATION
               or m.startswith(PRESENTATION)}
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert not offenders, offenders


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
