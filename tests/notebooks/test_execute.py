"""Every notebook of the series runs top to bottom in a fresh kernel of this venv, untouched.

A cell that raises fails the test (nbclient's CellExecutionError); so does any error output or
anything written to stderr (warnings included: teaching material should run clean). In the same
kernel, the closing exercise is then run twice more: with the right answer it must say "Correct",
with a wrong one it must fail. Each notebook's time (as shipped, without those two extra runs) is
recorded in test-artifacts/notebook-times.json, and the series must fit in the 90-second budget.
Every core table a cell shows must arrive as HTML, and each notebook must show the tables,
figures and widgets that `expectations.py` lists for it (so a plot that stops drawing, or tables
that render empty, fail here too, not only in the browser).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from expectations import EXPECTED
from notebook_counts import (
    count_figures,
    count_tables,
    count_widgets,
    implement_checkpoints,
    widget_state,
)

BUDGET_S = 90.0
CELL_TIMEOUT_S = 120
PLACEHOLDER = "answer = ..."
ANSWERS = {  # notebook: (the right answer, a wrong one), as Python source
    "00-welcome": ("1", "0"),
    "01-handles": ("[2]", "[0, 2]"),
    "02-router-flow": ("1", "3"),
    "03-moving-tensors": ("8000", "4000"),
    "04-quantization": ("32", "48"),
    "05-the-gap": ("'get_tensor'", "'register_tensor_to_device'"),
    "06-the-fix": ("2.53", "0.6"),
    "07-gpu": ("9", "36"),
}
_times: dict[str, float] = {}


@pytest.mark.notebooks
def test_notebook_runs_clean(notebook_path: Path, venv_kernel: str, artifacts: Path) -> None:
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    notebook = nbformat.read(notebook_path, as_version=4)
    client = NotebookClient(notebook, kernel_name=venv_kernel, timeout=CELL_TIMEOUT_S,
                            resources={"metadata": {"path": str(notebook_path.parent)}})
    exercise = max(i for i, c in enumerate(notebook.cells) if c.cell_type == "code")
    source = notebook.cells[exercise].source
    assert source.count(PLACEHOLDER) == 1, "the exercise cell ships with `answer = ...`"
    right, wrong = ANSWERS[notebook_path.stem]

    start = time.perf_counter()
    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):
            client.execute_cell(cell, index)
        _times[notebook_path.stem] = round(time.perf_counter() - start, 2)
        (artifacts / "notebook-times.json").write_text(json.dumps(_times, indent=2) + "\n")
        _assert_clean(notebook, notebook_path.name)
        _assert_tables_shown_as_html(notebook, notebook_path.name)
        client.set_widgets_metadata()
        _assert_shows_what_is_expected(notebook, notebook_path.stem)
        assert "Not answered yet" in _text(notebook.cells[exercise])

        answered = _append(notebook, source.replace(PLACEHOLDER, f"answer = {right}"))
        client.execute_cell(answered, len(notebook.cells) - 1)
        assert "Correct" in _text(answered), f"the right answer was refused: {_text(answered)}"
        assert "did not open" not in _text(answered), "re-seal the explanation for this answer"

        mistaken = _append(notebook, source.replace(PLACEHOLDER, f"answer = {wrong}"))
        with pytest.raises(CellExecutionError, match="Not quite") as failed:
            client.execute_cell(mistaken, len(notebook.cells) - 1)
        assert failed.value.ename == "WrongAnswer"


def test_every_notebook_of_the_series_has_expectations(series: list[str]) -> None:
    assert list(EXPECTED) == series, "tests/notebooks/expectations.py lists the series in order"


@pytest.mark.notebooks
def test_whole_series_within_budget(series: list[str]) -> None:
    if set(_times) != set(series):
        pytest.skip("the time budget is checked only when every notebook ran in this session")
    total = sum(_times.values())
    assert total <= BUDGET_S, f"the series took {total:.1f} s (budget {BUDGET_S} s): {_times}"


def _assert_clean(notebook, name: str) -> None:
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            where = f"{name} cell {index}"
            assert output["output_type"] != "error", f"{where} raised {output.get('ename')}"
            if output["output_type"] == "stream":
                assert output["name"] != "stderr", f"{where} wrote to stderr: {output['text']}"


def _assert_shows_what_is_expected(notebook, stem: str) -> None:
    """The counts of `expectations.py`, over the executed cells' outputs (`notebook_counts`)."""
    outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
    steppers, sliders = count_widgets(outputs, widget_state(notebook))
    shown = EXPECTED[stem]._replace(  # the opened_* counts are the browser test's
        tables=count_tables(outputs), figures=count_figures(outputs), steppers=steppers,
        sliders=sliders, implement=len(implement_checkpoints(notebook.cells)))
    assert shown == EXPECTED[stem], (
        f"{stem} shows {shown}, expected {EXPECTED[stem]} (tests/notebooks/expectations.py)")


def _assert_tables_shown_as_html(notebook, name: str) -> None:
    """A core table shown by a cell reaches the front end as HTML: core objects carry no
    renderer, so this holds only because `routerlab.notebook` registered its formatters."""
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if data.get("text/plain", "").startswith("TableView("):
                assert "routerlab-table" in data.get("text/html", ""), f"{name} cell {index}"


def _append(notebook, source: str):
    import nbformat

    cell = nbformat.v4.new_code_cell(source)
    notebook.cells.append(cell)
    return cell


def _text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        parts.append(output.get("data", {}).get("text/plain", ""))
        parts.append(output.get("evalue", ""))
    return "\n".join(parts)
