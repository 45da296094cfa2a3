"""The committed notebooks: the whole series, no outputs, learning goals first, a recap last,
3-5 checkpoints from the exercise catalog that give nothing away before the attempt, and thin
code cells (no model logic: every computation calls routerlab.core). Plain JSON reads, so these
run in the fast part of the suite."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from routerlab.exercises.catalog import load_catalog

MAX_CODE_LINES = 14
BUILD_TRACK = "11-build-your-router"
"""The notebook beside the series that leads the build track: one checkpoint per build-N."""
ALLOWED_IMPORTS = ("routerlab", "numpy", "matplotlib", "IPython")


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_series_is_complete_and_numbered(notebook_dir: Path, series: list[str]) -> None:
    """Every notebook is in the series, each number once, starting at 00; the capstone closes
    the series, and only the build track's notebook comes after it, beside the series
    (docs/notebooks.md); every one has its row of what it shows."""
    from expectations import EXPECTED

    assert sorted(p.stem for p in notebook_dir.glob("*.ipynb")) == series
    numbers = [int(name[:2]) for name in series]
    assert numbers[0] == 0 and len(set(numbers)) == len(numbers), numbers
    assert series[-2].endswith("capstone-router"), "the capstone closes the series"
    assert series[-1] == BUILD_TRACK, "beside it, the build track's notebook"
    assert set(EXPECTED) == set(series)


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


def test_goals_first_and_a_recap_last(notebook_path: Path) -> None:
    """A lesson states its goals and ends with a recap: Burn files to read next, 3-6 questions,
    and the terminal exercises on the same topic, by id (ids that exist)."""
    cells = load(notebook_path)["cells"]
    first = "".join(cells[0]["source"])
    assert cells[0]["cell_type"] == "markdown" and "Learning goals" in first
    number = notebook_path.stem[:2]
    assert re.match(rf"# {number} ", first), "the title starts with the notebook's number"
    last = "".join(cells[-1]["source"])
    assert cells[-1]["cell_type"] == "markdown" and "Recap" in last, "the last cell is a recap"
    assert re.search(r"crates/burn-[\w-]+/src/\S+\.rs", last), "the recap names Burn files"
    questions = re.findall(r"^\s*\d+\.\s", last.split("Questions", 1)[-1], re.M)
    assert 3 <= len(questions) <= 6, f"3-6 self-study questions, found {len(questions)}"
    named = set(re.findall(r"routerlab exercises \w+ ([a-z]+-\d+)", last))
    assert named, "the recap names the matching terminal exercises by id"
    assert named <= {e.id for e in load_catalog()}


def checkpoints(cells: list[dict]) -> dict[str, str]:
    """Each `lab.check("id", ...)` of a notebook: id -> the check cell's source."""
    found = {}
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code":
            for match in re.finditer(r'^lab\.check\("([a-z]+-\d+)"', source, re.M):
                found[match.group(1)] = source
    return found


def test_three_to_five_checkpoints_of_the_catalog(notebook_path: Path) -> None:
    """Three to five checkpoints (the capstone may be one: it grades every earlier piece at
    once; the build track's notebook leads its eight, a whole class each). Every checkpoint is a
    catalog exercise that names this notebook, and every exercise that names this notebook is
    one of its checkpoints."""
    cells = load(notebook_path)["cells"]
    found = checkpoints(cells)
    fewest = 1 if notebook_path.stem.endswith("capstone-router") else 3  # one, of every piece
    most = 8 if notebook_path.stem == BUILD_TRACK else 5
    assert fewest <= len(found) <= most, f"{notebook_path.stem} has {len(found)} checkpoints"
    mine = {e.id for e in load_catalog() if e.notebook == notebook_path.stem}
    assert set(found) == mine, "checkpoints and the catalog's `notebook =` fields disagree"
    code = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert "lesson(" in code and 'check(answer' not in code


def test_nothing_is_given_away_before_the_attempt(notebook_path: Path) -> None:
    """Hints and give-ups are on demand (commented out as shipped), a prediction ships as `...`,
    and every predict checkpoint's answer is shown only through `lab.reveal`."""
    cells = load(notebook_path)["cells"]
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        for line in "".join(cell["source"]).splitlines():
            code = line.split("#", 1)[0]
            assert "lab.hint(" not in code and "lab.give_up(" not in code, (
                f"cell {index} of {notebook_path.name} runs a hint or gives up as shipped")
    catalog = {e.id: e for e in load_catalog()}
    code = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    for exercise_id in checkpoints(cells):
        if catalog[exercise_id].kind.value in ("predict", "experiment"):
            assert f'lab.reveal("{exercise_id}"' in code, f"{exercise_id} is never revealed"


def test_code_cells_are_thin(notebook_path: Path) -> None:
    """No model logic in a notebook: a function or class is written only in a `# YOUR CODE`
    cell, where the learner implements a checkpoint."""
    for index, cell in enumerate(load(notebook_path)["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        where = f"cell {index} of {notebook_path.name}"
        assert len(source.splitlines()) <= MAX_CODE_LINES or source.startswith(
            "# YOUR CODE"), f"{where} is long"
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
                assert source.startswith("# YOUR CODE"), (
                    f"{where} defines {node.name}: model logic belongs in routerlab.core")
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [node.module] if isinstance(node, ast.ImportFrom) else [
                    a.name for a in node.names]
                for name in names:
                    assert name and name.startswith(ALLOWED_IMPORTS), (
                        f"{where} imports {name}")


def test_no_notebook_imports_a_check_module(notebook_path: Path) -> None:
    """Issue 39: notebook 09 imported wire-2's flow from `routerlab.exercises.checks.wire` and
    ran it before the lock. A check module holds what grades the learner; a lesson builds what
    it shows itself, and a reveal runs what states an answer."""
    for index, cell in enumerate(load(notebook_path)["cells"]):
        if cell["cell_type"] != "code":
            continue
        for node in ast.walk(ast.parse("".join(cell["source"]))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [
                a.name for a in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                assert not name.startswith("routerlab.exercises.checks"), (
                    f"cell {index} of {notebook_path.name} imports {name}")


def test_no_predict_answer_shows_before_its_reveal(notebook_path: Path) -> None:
    """The model's answer to a predict (or experiment) checkpoint, as values and choice names,
    appears in no cell above the checkpoint's locked reveal (`answer_leaks.py` says how)."""
    from answer_leaks import leaks, model_answers, predict_checkpoints

    cells = load(notebook_path)["cells"]
    found = [f"{exercise_id} {leak}" for exercise_id in predict_checkpoints(cells)
             for leak in leaks(cells, exercise_id, model_answers(exercise_id))]
    assert not found, f"{notebook_path.name} states answers before their reveal: {found}"


def test_a_checkpoints_kind_is_the_same_in_the_notebook_and_the_terminal(
        notebook_path: Path) -> None:
    """A checkpoint headed `(experiment)` is an experiment in `routerlab exercises list` too."""
    catalog = {e.id: e for e in load_catalog()}
    text = "".join("".join(c["source"]) for c in load(notebook_path)["cells"]
                   if c["cell_type"] == "markdown")
    for exercise_id, kind in re.findall(r"Checkpoint `([a-z]+-\d+)` \((\w+)\)", text):
        assert catalog[exercise_id].kind.value == kind, f"{exercise_id}: {kind} in the notebook"


def test_the_terminal_list_calls_experiments_experiment(tmp_path: Path) -> None:
    from routerlab.exercises.learner.course import Course
    from routerlab.exercises.learner.render import LIST_HEADER, list_rows
    from routerlab.exercises.learner.workspace import init_workspace, open_workspace

    init_workspace(tmp_path / "ws", student="ada")
    rows = list_rows(Course(open_workspace(tmp_path / "ws")).statuses())
    kind = LIST_HEADER.index("kind")
    shown = {row[1]: row[kind] for row in rows}
    assert {i for i, k in shown.items() if k == "experiment"} == {
        "flow-1", "transfer-4", "quant-6", "fix-4", "peers-3", "wire-3"}


def test_each_notebooks_minutes_are_stated_once_and_the_map_adds_them_up(
        notebook_dir: Path, series: list[str]) -> None:
    """`metadata.routerlab.minutes` is THE estimate (the docs' count test reads it): each
    notebook's goals say it, and notebook 00's map lists every notebook, 08 included, with its
    minutes and their sum."""
    minutes = {}
    for name in series:
        notebook = load(notebook_dir / f"{name}.ipynb")
        minutes[name] = notebook["metadata"]["routerlab"]["minutes"]
        assert isinstance(minutes[name], int) and 5 <= minutes[name] <= 60, name
        goals = "".join(notebook["cells"][0]["source"])
        assert f"**Learning goals** (about {minutes[name]} minutes)" in goals, name
    welcome = "".join("".join(c["source"]) for c in load(notebook_dir / f"{series[0]}.ipynb")
                      ["cells"] if c["cell_type"] == "markdown")
    rows = dict(re.findall(r"^\| (\d\d) \| [^|]+ \| (\d+) \|", welcome, re.M))
    assert rows == {name[:2]: str(minutes[name]) for name in series}, "the map of the series"
    total = sum(minutes.values())
    assert f"about {total // 60} hours {total % 60} minutes in all" in welcome


def test_learning_goals_are_questions(notebook_path: Path) -> None:
    goals = "".join(load(notebook_path)["cells"][0]["source"]).split("**Learning goals**", 1)[1]
    items = re.findall(r"^\d+\. (.*)$", goals, re.M)
    assert items and all(item.rstrip().endswith(("?", "experiment.")) for item in items), items


def test_an_implement_cell_shows_every_constructor_its_solution_calls(
        notebook_path: Path) -> None:
    """CS231n-style: what the learner must build (`BurnPanic(message, source)`, a
    `HandleKind(kind, primitive)`) is shown, with its arguments, in the `# YOUR CODE` cell."""
    from routerlab.exercises.authoring.sealing import open_solution

    catalog = {e.id: e for e in load_catalog()}
    cells = load(notebook_path)["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    for cell, after in zip(code, code[1:], strict=False):
        source = "".join(cell["source"])
        match = re.search(r'lab\.check\("([a-z]+-\d+)"', "".join(after["source"]))
        if not source.startswith("# YOUR CODE") or not match:
            continue
        solution = open_solution(catalog[match.group(1)])
        for name in set(re.findall(r"(?<![\w.:])([A-Z]\w+)\(", solution)):
            assert re.search(rf"(?<![\w.]){name}\([^)]+\)", source), (
                f"{match.group(1)}: the cell does not show how to build {name}(...)")
