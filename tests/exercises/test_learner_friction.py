"""What a learner met and should not have (issue 32): an import the workspace README gives that
fails in a notebook, answer names made up and echoed back, RouterLab's frames around an
undefined name, an untouched starter counted as an attempt, a terminal hint that speaks of the
notebook's variables, and a refusal that suggests the very device it refused."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from routerlab.core import DeviceError, Runtime
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.errors import ExerciseError
from routerlab.exercises.learner import notebook as face
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.render import report_view
from routerlab.exercises.learner.workspace import Workspace
from routerlab.notebook.lesson import Lesson


def test_the_workspace_readme_imports_work_in_a_notebook_kernel(workspace: Workspace) -> None:
    """The README's notebook lines are imports a kernel started in the workspace can run (a
    relative `from .. import check` raises ImportError there: a notebook is no package)."""
    text = (workspace.root / "README.md").read_text("utf-8")
    snippet = text.split("In a notebook", 1)[1]
    imports = [line.strip() for line in snippet.splitlines()
               if line.strip().startswith(("from ", "import "))]
    assert imports and not any(line.startswith("from .") for line in imports)
    done = subprocess.run([sys.executable, "-c", "\n".join(imports)], cwd=workspace.root,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_an_answer_name_the_checkpoint_does_not_ask_for_is_refused_by_name(
        workspace: Workspace) -> None:
    lab = Lesson(workspace)
    said = lab.check("lifecycle-2", COUNT_BEFORE_ADD=3, DROPS=[0], IDS=...)
    assert said.tone == "error"
    assert "no answer named DROPS, IDS" in said.body
    assert "COUNT_BEFORE_ADD, DROP_OPS, IDS_AFTER" in said.body  # what it does ask for
    assert "did you mean DROP_OPS for DROPS?" in said.body
    with pytest.raises(ExerciseError, match="no answer named WRONG"):  # the face says the same
        face.check("lifecycle-2", WRONG=1, dir=workspace.root)
    assert Course(workspace).status("lifecycle-2").record.attempts == 0  # nothing checked
    unanswered = lab.check("lifecycle-2", COUNT_BEFORE_ADD=..., DROP_OPS=..., IDS_AFTER=...)
    assert unanswered.heading == "lifecycle-2: not answered yet"  # the real names still are


def test_every_predict_starter_asks_for_exactly_its_suites_answers() -> None:
    """The names the refusal lists are the ones the checks read."""
    from routerlab.exercises.checks import suite_for

    for exercise in load_catalog():
        if exercise.kind.value == "implement":
            continue
        asked = face.answer_names(exercise.starter())
        assert sorted(asked) == sorted(p.name for p in suite_for(exercise).parts), exercise.id


def test_an_undefined_name_shows_the_learners_cell_and_line_only(workspace: Workspace,
                                                                 tmp_path: Path) -> None:
    cell = tmp_path / "cell_5.py"  # a cell's code, as inspect finds a function's source
    cell.write_text("def get_handle(handles, tensor_id, status):\n"
                    "    handle = handles[tensor_id]\n"
                    "    return handle + undefined_thing\n", "utf-8")
    space: dict[str, object] = {}
    exec(compile(cell.read_text("utf-8"), str(cell), "exec"), space)  # noqa: S102 - test code
    said = Lesson(workspace).check("registry-1", space["get_handle"])
    assert said.tone == "error" and "undefined_thing" in said.body
    assert "cell_5.py, line 3: return handle + undefined_thing" in said.body
    assert "routerlab" not in said.body.replace("routerlab.exercises", "")
    assert "Traceback" not in said.body and len(said.body.splitlines()) <= 3


def test_a_terminal_check_of_the_untouched_starter_is_no_attempt(workspace: Workspace) -> None:
    course = Course(workspace)
    exercise = course.catalog.get("registry-1")
    report = course.check("registry-1")  # the file init wrote: the starter, untouched
    assert not report.passed and report.untouched
    assert course.status("registry-1").record.attempts == 0
    assert "not counted as an attempt" in report_view(report, exercise).headline
    path = workspace.file_for(exercise)
    path.write_text(path.read_text("utf-8") + "\n# a first try\n", "utf-8")
    again = course.check("registry-1")
    assert not again.untouched and course.status("registry-1").record.attempts == 1


def test_flow_1_speaks_to_the_terminal_too() -> None:
    """The hints are shown by `routerlab exercises hint` as well: no notebook variable."""
    flow = load_catalog().get("flow-1")
    assert not any(re.search(r"\bDEVICES\b", hint) for hint in flow.hints)
    assert "DEVICES" not in flow.statement()


@pytest.mark.parametrize("devices", [["peer2/cpu:0@ndarray", "peer2/cpu:1"],
                                     ["cpu:0", "peer2/cpu:0", "peer2/cpu:1@ndarray"],
                                     ["cpu:0", "cpu:1@ndarray"]])
def test_a_refused_device_is_pointed_at_a_peer_the_runtime_does_not_use(
        devices: list[str]) -> None:
    with pytest.raises(DeviceError) as refused:
        Runtime(devices)
    suggested = re.search(r"e\.g\. (\w+)/", str(refused.value))
    assert suggested, str(refused.value)
    used = {d.split("/")[0] if "/" in d else "local" for d in devices}
    assert suggested.group(1) not in used
    Runtime([*devices[:-1], str(refused.value).rsplit("e.g. ", 1)[1]])  # and it is accepted
