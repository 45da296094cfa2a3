"""Every notebook of the series runs top to bottom in a fresh kernel of this venv, untouched,
and then again as a learner who solved every checkpoint would run it.

A cell that raises fails the test (nbclient's CellExecutionError); so does any error output or
anything written to stderr (warnings included: teaching material should run clean). As shipped,
every checkpoint says it is not answered yet and every `lab.reveal` stays locked. Then, in the
same kernel, the notebook runs again with the cell before each `lab.check("id", ...)` (the
prediction, or the `# YOUR CODE` cell) replaced: first by a sealed wrong submission of the first
checkpoint, which must fail, then by each checkpoint's sealed solution, which must pass; every
reveal must then open and run clean, and show the same tables when it runs again after the
last cell (a learner's rerun after Run All). No cell above a checkpoint's reveal may show its
answer, in its source or its outputs (`answer_leaks.py`). Each notebook's time as shipped is
recorded in test-artifacts/notebook-times.json; the series' 90-second budget is a wall-time
claim, measured by benchmarks/notebooks.py (never by a test: it swings with the load). Every
core table a cell shows must arrive as HTML, and each notebook must show the
tables, figures and widgets that `expectations.py` lists for it (so a plot that stops drawing,
or tables that render empty, fail here too, not only in the browser).
"""

from __future__ import annotations

import json
import re
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

CELL_TIMEOUT_S = 120
CHECK = re.compile(r'^lab\.check\("([a-z]+-\d+)"', re.M)
PASSED, FAILED, LOCKED, UNANSWERED = "✓", "✗", "Locked:", "not answered yet"
_times: dict[str, float] = {}


@pytest.mark.notebooks
def test_notebook_runs_clean(notebook_path: Path, venv_kernel: str, artifacts: Path) -> None:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(notebook_path, as_version=4)
    client = NotebookClient(notebook, kernel_name=venv_kernel, timeout=CELL_TIMEOUT_S,
                            resources={"metadata": {"path": str(notebook_path.parent)}})
    checks = {i: m.group(1) for i, c in enumerate(notebook.cells)
              if c.cell_type == "code" and (m := CHECK.search(c.source))}
    assert checks, "a lesson has checkpoints"

    start = time.perf_counter()
    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):
            client.execute_cell(cell, index)
        _times[notebook_path.stem] = round(time.perf_counter() - start, 2)
        (artifacts / "notebook-times.json").write_text(json.dumps(_times, indent=2) + "\n")
        _assert_clean(notebook, notebook_path.name)
        _assert_no_answer_before_its_reveal(notebook, notebook_path.name)
        _assert_tables_shown_as_html(notebook, notebook_path.name)
        _assert_figures_are_svg(notebook, notebook_path.name)
        client.set_widgets_metadata()
        _assert_shows_what_is_expected(notebook, notebook_path.stem)
        for index, exercise_id in checks.items():
            assert UNANSWERED in _text(notebook.cells[index]), f"{exercise_id} is answered"
        assert LOCKED in "".join(map(_text, notebook.cells)) or not _reveals(notebook)

        first = min(checks)  # the kernel still has `lab` and the rest from the first run
        _assert_a_wrong_submission_fails(client, notebook, first, checks[first])
        solved = _solved_copy(notebook, checks)
        for index, cell in enumerate(solved.cells):
            client.execute_cell(cell, index)
        _assert_clean(solved, f"{notebook_path.name} (solved)")
        for index, exercise_id in checks.items():
            assert PASSED in _text(solved.cells[index]), (
                f"{exercise_id}'s sealed solution does not pass in the notebook: "
                f"{_text(solved.cells[index])[:400]}")
        for index in _reveals(solved):
            assert LOCKED not in _text(solved.cells[index]), f"cell {index} stayed locked"
        _assert_reveals_survive_the_last_cell(client, solved, notebook_path.name)


def _assert_reveals_survive_the_last_cell(client, solved, name: str) -> None:
    """A learner who ran everything and then passes (or gives up) runs a reveal again: it
    must show what it showed before, though the last cell has run (08's stops its servers)."""
    import copy

    for index in _reveals(solved):
        again = copy.deepcopy(solved.cells[index])
        again.outputs = []
        client.execute_cell(again, index)
        before = count_tables(solved.cells[index].outputs)
        assert count_tables(again.outputs) == before, (
            f"{name} cell {index}: its reveal, run again after the last cell, shows "
            f"{count_tables(again.outputs)} tables, not {before}")


def _reveals(notebook) -> list[int]:
    return [i for i, c in enumerate(notebook.cells)
            if c.cell_type == "code" and "lab.reveal(" in c.source]


def _solved_copy(notebook, checks: dict[int, str]):
    """The notebook with the code cell before each check replaced by the sealed solution."""
    import copy

    from routerlab.exercises.authoring.sealing import open_solution
    from routerlab.exercises.catalog import load_catalog

    solved = copy.deepcopy(notebook)
    for index, exercise_id in checks.items():
        before = max(i for i in range(index) if solved.cells[i].cell_type == "code")
        solution = open_solution(load_catalog().get(exercise_id))
        solved.cells[before].source = (_into_file(exercise_id, solution)
                                       if _graded_from_file(solved.cells[index].source)
                                       else solution)
    for cell in solved.cells:
        cell.outputs = []
    return solved


def _assert_a_wrong_submission_fails(client, notebook, index: int, exercise_id: str) -> None:
    """A sealed wrong submission, run in the kernel, makes the check cell show a failure
    (without raising: a lesson runs on)."""
    import nbformat

    from routerlab.exercises.authoring.sealing import open_wrong
    from routerlab.exercises.catalog import load_catalog

    wrong = open_wrong(load_catalog().get(exercise_id))
    assert wrong, f"{exercise_id} has no sealed wrong submission"
    source = wrong[0].source
    if _graded_from_file(notebook.cells[index].source):
        source = _into_file(exercise_id, source)
    trial = [nbformat.v4.new_code_cell(source),
             nbformat.v4.new_code_cell(notebook.cells[index].source)]
    for cell in trial:
        client.execute_cell(cell, index)
    _assert_clean(nbformat.v4.new_notebook(cells=trial), f"{exercise_id}'s wrong submission")
    assert FAILED in _text(trial[1]) and PASSED not in _text(trial[1]), _text(trial[1])[:400]


def _graded_from_file(check: str) -> bool:
    """A check cell that grades the workspace file (`lab.check("build-1")`: the build track's
    checkpoints are whole files), not code or answers given in the call."""
    return bool(re.search(r'^lab\.check\("[a-z]+-\d+"\)$', check, re.M))


def _into_file(exercise_id: str, source: str) -> str:
    """A cell that writes `source` into the exercise's workspace file, as a learner writing
    their router in JupyterLab's editor would (the kernel's `lab` knows the workspace)."""
    return ("from routerlab.exercises.learner.course import Course as _Course\n"
            "_course = _Course(lab.workspace)\n"
            f"_file = _course.workspace.file_for(_course.catalog.get({exercise_id!r}))\n"
            "_file.parent.mkdir(parents=True, exist_ok=True)\n"
            f"_file.write_text({source!r}, encoding='utf-8')\n")


def test_every_notebook_of_the_series_has_expectations(series: list[str]) -> None:
    assert list(EXPECTED) == series, "tests/notebooks/expectations.py lists the series in order"


def _assert_clean(notebook, name: str) -> None:
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            where = f"{name} cell {index}"
            assert output["output_type"] != "error", f"{where} raised {output.get('ename')}"
            if output["output_type"] == "stream":
                assert output["name"] != "stderr", f"{where} wrote to stderr: {output['text']}"


def _assert_no_answer_before_its_reveal(notebook, name: str) -> None:
    """No cell above a checkpoint's reveal shows its answer, in its source or in what it
    printed or drew when it ran (`answer_leaks.py`)."""
    from answer_leaks import leaks, model_answers, predict_checkpoints

    found = [f"{exercise_id} {leak}" for exercise_id in predict_checkpoints(notebook.cells)
             for leak in leaks(notebook.cells, exercise_id, model_answers(exercise_id))]
    assert not found, f"{name} shows answers before their reveal: {found}"


def _assert_shows_what_is_expected(notebook, stem: str) -> None:
    """The counts of `expectations.py`, over the executed cells' outputs (`notebook_counts`)."""
    outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
    steppers, sliders = count_widgets(outputs, widget_state(notebook))
    shown = EXPECTED[stem]._replace(  # the opened_* counts are the browser test's
        tables=count_tables(outputs), figures=count_figures(outputs), steppers=steppers,
        sliders=sliders, implement=len(implement_checkpoints(notebook.cells)))
    assert shown == EXPECTED[stem], (
        f"{stem} shows {shown}, expected {EXPECTED[stem]} (tests/notebooks/expectations.py)")


def _assert_figures_are_svg(notebook, name: str) -> None:
    """Every figure of the series is SVG (`plot_theme`): a PNG is the one figure that paints a
    solid box in one of JupyterLab's themes (issue 39: notebook 09's lanes were the only PNG)."""
    pngs = [i for i, c in enumerate(notebook.cells) if c.cell_type == "code"
            for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert not pngs, f"{name}: cells {pngs} show a PNG figure; call plot_theme() first"


def _assert_tables_shown_as_html(notebook, name: str) -> None:
    """A core table shown by a cell reaches the front end as HTML: core objects carry no
    renderer, so this holds only because `routerlab.notebook` registered its formatters."""
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if data.get("text/plain", "").startswith("TableView("):
                assert "routerlab-table" in data.get("text/html", ""), f"{name} cell {index}"


def _text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        parts.append(output.get("data", {}).get("text/plain", ""))
        parts.append(output.get("data", {}).get("text/html", ""))
        parts.append(output.get("evalue", ""))
    return "\n".join(parts)
