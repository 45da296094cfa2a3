"""The notebook face gives the terminal's verdict on the same code, and shares its progress.

The last test runs a real Jupyter kernel (nbclient) inside a workspace and compares what
`check()` shows there with `routerlab exercises check --json` on the same code.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from routerlab.exercises import check, hint, progress, solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.errors import ExerciseError, LockedError
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.workspace import Workspace

Solve = Callable[[Workspace, str], Path]


def _terminal(workspace: Workspace, exercise_id: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "routerlab", "exercises", "check", exercise_id,
                          "--json", "--dir", str(workspace.root)],
                         capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout)[0]


def pack_u32(values: list[int], bits: int) -> list[int]:
    """A student's notebook cell (the reference algorithm, written out)."""
    per_word, mask, words = 32 // bits, (1 << bits) - 1, []
    for start in range(0, len(values), per_word):
        word = 0
        for k, value in enumerate(values[start:start + per_word]):
            word |= (value & mask) << (k * bits)
        words.append(word)
    return words


BUGGY_CELL = '''def pack_u32(values, bits):
    words = []
    for start in range(0, len(values), 32 // bits):
        word = 0
        for k, value in enumerate(values[start:start + 32 // bits]):
            word |= (value & 0xFF) << (k * bits)  # masks to 8 bits whatever `bits` is
        words.append(word)
    return words'''
"""A notebook cell with a classic mistake, checked from the notebook and from a file."""


def test_check_returns_html_with_the_same_rows_as_the_terminal(workspace: Workspace) -> None:
    view = check("quant-3", dir=workspace.root)
    html = view._repr_html_()
    assert "✗ quant-3" in html and "<table>" in html
    assert "lab.hint(&quot;quant-3&quot;, " in html, "the notebook's own syntax for a hint"
    terminal = _terminal(workspace, "quant-3")
    assert terminal["passed"] is view.passed is False
    assert terminal["checks"] == [list(r) for r in view.table.rows]


def test_functions_from_a_notebook_cell_are_checked_like_a_file(workspace: Workspace) -> None:
    view = check("quant-3", pack_u32, dir=workspace.root)
    assert view.passed, view.blocks
    assert 'lab.solution("quant-3")' in view.footer
    assert "reference solution" in solution("quant-3", dir=workspace.root).title
    record = Course(workspace).status("quant-3")
    assert record.done, "the notebook's pass is in the one shared progress file"


def test_plain_values_answer_a_predict_exercise(workspace: Workspace) -> None:
    view = check("lifecycle-2", COUNT_BEFORE_ADD=1, DROP_OPS=[], IDS_AFTER=[0], dir=workspace.root)
    assert not view.passed
    assert [r[2] for r in view.table.rows][0] == "passed", "well formed, but wrong"
    with pytest.raises(ExerciseError, match="plain Python value"):
        check("lifecycle-2", COUNT_BEFORE_ADD=object(), dir=workspace.root)
    with pytest.raises(LockedError):
        solution("lifecycle-2", dir=workspace.root)


def test_hint_and_progress_render_in_html(workspace: Workspace) -> None:
    assert "nudge" in hint("quant-1", dir=workspace.root)._repr_html_()
    page = progress(dir=workspace.root)._repr_html_()
    assert f"0/{len(load_catalog())} exercises passed" in page and "quant-1" in page


def test_a_real_notebook_and_the_terminal_give_the_same_verdicts(
        workspace: Workspace, solve: Solve,
) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    solve(workspace, "quant-1")
    cells = [
        "import json\n"
        "from routerlab.exercises import check\n"
        "starter = check('quant-3')\n"
        "solved = check('quant-1')\n"
        "for view in (starter, solved):\n"
        "    print(json.dumps([view.passed, [list(r) for r in view.table.rows]]))",
        "solved",
        BUGGY_CELL + "\n"
        "cell = check('quant-3', pack_u32)\n"
        "print(json.dumps([cell.passed, [list(r) for r in cell.table.rows]]))",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    folder = workspace.exercise_dir  # a notebook saved anywhere inside the workspace
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}}).execute()
    printed = notebook.cells[0].outputs[0]["text"].splitlines()
    starter_nb, solved_nb = (json.loads(line) for line in printed)
    assert "text/html" in notebook.cells[1].outputs[0]["data"]
    terminal = _terminal(workspace, "quant-1")
    assert [terminal["passed"], terminal["checks"]] == solved_nb
    assert solved_nb[0] is True and starter_nb[0] is False
    cell_nb = json.loads(notebook.cells[2].outputs[0]["text"])
    # check() with a cell's function saved it into the workspace file: the terminal agrees
    saved = workspace.file_for(load_catalog().get("quant-3")).read_text()
    assert "code given to check() in the notebook" in saved and "def pack_u32" in saved
    terminal = _terminal(workspace, "quant-3")
    assert [terminal["passed"], terminal["checks"]] == cell_nb
    assert cell_nb[0] is False and "passed" in [row[2] for row in cell_nb[1]], \
        "a partly right function: Q8 passes, narrower negative values fail"


def test_a_constant_beside_the_function_in_a_cell_goes_with_it(
        workspace: Workspace, tmp_path: Path) -> None:
    """A cell that defines `WORD_BITS = 32` and a function using it is checked with both."""
    import importlib.util

    cell = tmp_path / "cell_with_constant.py"
    cell.write_text("WORD_BITS = 32\n\n\n" + BUGGY_CELL.replace("32 //", "WORD_BITS //")
                    .replace("0xFF", "((1 << bits) - 1)") + "\n")
    spec = importlib.util.spec_from_file_location("cell_with_constant", cell)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    view = check("quant-3", module.pack_u32, dir=workspace.root)
    assert view.passed, view.blocks
    saved = Course(workspace).workspace.file_for(load_catalog().get("quant-3")).read_text()
    assert "WORD_BITS = 32" in saved


def test_a_cells_imports_go_with_its_function_and_tracebacks_name_the_cell(
        workspace: Workspace) -> None:
    """In a real kernel: the function's own cell imports `operator`, another cell imported
    `np`; both reach the saved file, and the check passes. A function that raises is then
    shown with its notebook cell and line (`Cell In[4], line 2`), not the saved file's."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    saved = workspace.file_for(load_catalog().get("registry-3"))
    cells = [
        "import numpy as np",
        "import operator\nfrom routerlab.core import READ_ONLY, READ_WRITE\n\n\n"
        "def status_for(count):\n"
        "    return READ_WRITE if operator.eq(int(np.int64(count)), 1) else READ_ONLY",
        "from routerlab.exercises import check\n"
        "view = check('registry-3', status_for)\n"
        f"text = open({str(saved)!r}).read()\n"
        "print(view.passed, 'import operator' in text, 'import numpy as np' in text)",
        "def status_for(count):\n    return {1: READ_WRITE}[count]",
        "bad = check('registry-3', status_for)\n"
        "print('\\n'.join(block.text for block in bad.blocks))",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(workspace.exercise_dir)}}
                            ).execute()
    assert notebook.cells[2].outputs[0]["text"].split() == ["True", "True", "True"]
    shown = notebook.cells[4].outputs[0]["text"]
    assert "Cell In[4], line 2, in status_for" in shown, shown
    assert "return {1: READ_WRITE}[count]" in shown and saved.name not in shown, shown
