"""The committed notebooks: the whole series, no outputs, learning goals first, an exercise last,
and thin code cells (no model logic: every computation calls routerlab.core). Plain JSON reads,
so these run in the fast part of the suite."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

MAX_CODE_LINES = 14
ALLOWED_IMPORTS = ("routerlab", "numpy", "matplotlib", "IPython")


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_series_is_complete_and_numbered(notebook_dir: Path, series: list[str]) -> None:
    assert sorted(p.stem for p in notebook_dir.glob("*.ipynb")) == series


def test_committed_without_outputs(notebook_path: Path) -> None:
    notebook = load(notebook_path)
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"cell {index} of {notebook_path.name} has outputs"
            assert cell.get("execution_count") is None, f"cell {index} has an execution count"
    assert "widgets" not in notebook["metadata"], "saved widget state is an output too"
    ids = [cell.get("id") for cell in notebook["cells"]]
    assert None not in ids and len(set(ids)) == len(ids), "nbformat 4.5 wants a unique id per cell"
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"


def test_goals_first_and_a_checked_exercise_last(notebook_path: Path) -> None:
    cells = load(notebook_path)["cells"]
    first = "".join(cells[0]["source"])
    assert cells[0]["cell_type"] == "markdown" and "Learning goals" in first
    number = notebook_path.stem[:2]
    assert re.match(rf"# {number} ", first), "the title starts with the notebook's number"
    code = [c for c in cells if c["cell_type"] == "code"]
    assert "check(" in "".join(code[-1]["source"]), "the last code cell checks the exercise"
    assert any("Exercise" in "".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def test_code_cells_are_thin(notebook_path: Path) -> None:
    for index, cell in enumerate(load(notebook_path)["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        where = f"cell {index} of {notebook_path.name}"
        assert len(source.splitlines()) <= MAX_CODE_LINES, f"{where} is long"
        tree = ast.parse(source)
        for node in ast.walk(tree):
            assert not isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef), (
                f"{where} defines {node.name}: model logic belongs in routerlab.core"
            )
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [node.module] if isinstance(node, ast.ImportFrom) else [
                    a.name for a in node.names]
                for name in names:
                    assert name and name.startswith(ALLOWED_IMPORTS), (
                        f"{where} imports {name}")
