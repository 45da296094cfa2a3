"""The learner's defects of issue 39 (item 6), each with the test that shows it fixed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from routerlab.core.base.errors import MissingHandleError
from routerlab.core.router.ir import TensorId
from routerlab.exercises import check
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.checks import suite_for
from routerlab.exercises.engine.judge import judge_check
from routerlab.exercises.engine.runner import Candidate, run_checks
from routerlab.exercises.errors import ExerciseError
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.workspace import Workspace

BURN_FAITHFUL_GET_HANDLE = '''
from typing import Any

from routerlab.core.base.errors import BurnPanic, MissingHandleError
from routerlab.core.router.ir import TensorId, TensorStatus


def get_handle(handles: dict[int, Any], tensor_id: TensorId, status: TensorStatus) -> Any:
    """handle.rs:93-113: remove the entry, then put a clone back for ReadOnly."""
    if tensor_id not in handles:
        raise MissingHandleError(tensor_id)
    handle = handles.pop(tensor_id)
    if status is TensorStatus.READ_ONLY:
        handles[tensor_id] = handle
        return handle
    if status is TensorStatus.READ_WRITE:
        return handle
    raise BurnPanic(f"Cannot get uninitialized tensor {tensor_id!r}. Tensor exist but with wrong "
                    "status", "crates/burn-ir/src/handle.rs:104-106")
'''


def _grade(exercise_id: str, source: str, tmp_path: Path):  # noqa: ANN202 - a CheckReport
    path = tmp_path / f"{exercise_id.replace('-', '_')}.py"
    path.write_text(source, encoding="utf-8")
    return run_checks(load_catalog().get(exercise_id), Candidate(path, path.name))


def test_a_burn_faithful_get_handle_passes_registry_1(tmp_path: Path) -> None:
    """Remove then re-insert under the `TensorId` given (crates/burn-ir/src/handle.rs:93-113):
    the check's registries are keyed by TensorId as the router's are, so the keys it leaves
    are the ones a get that never removed leaves."""
    report = _grade("registry-1", BURN_FAITHFUL_GET_HANDLE, tmp_path)
    assert report.passed, [(o.name, o.message) for o in report.outcomes if not o.ok]


@pytest.mark.parametrize("given", [0, TensorId(0), 7, TensorId(7)])
def test_missing_handle_text_is_burns_for_an_int_or_a_tensor_id(given: int) -> None:
    """Burn panics with `Should have handle for tensor {id:?}` (handle.rs:97), and a TensorId's
    Debug is `TensorId { value: N }`, whether the model passes an int or a TensorId."""
    assert MissingHandleError(given).message == (
        f"Should have handle for tensor TensorId {{ value: {int(given)} }}")


def test_a_hidden_step_that_reads_differently_says_where() -> None:
    """The step's description comes from what the code left (a registry's ids): a mismatch says
    where the two descriptions part, not only "the check saw … here instead"."""
    exercise = load_catalog().get("registry-1")
    hidden = next(c for c in suite_for(exercise).checks if c.hidden and "seeded" in c.name)
    want = [("case 0: get_handle(…, 2, ReadOnly) on ids [0, 1, 3]", ["returned", "h"])]
    sent = {"observed": [["case 0: get_handle(…, 2, ReadOnly) on ids [0, 3]", ["returned", "h"]]]}
    outcome = judge_check(hidden, want, sent, exercise.tolerance)
    assert not outcome.ok
    assert outcome.got is not None
    assert "on ids [0, 3]" in outcome.got and "on ids [0, 1, 3]" in outcome.got
    assert "part at character 47" in outcome.got


KIND_OF_EVERYWHERE = '''
from typing import Any

from routerlab.core.router.backend import Kind, kind_of


def is_quantized_handle(kind: Any) -> bool:
    return kind_of(kind) is Kind.QUANTIZED


def can_move_to_device(kind: Any, policy: str = "native") -> bool:
    if is_quantized_handle(kind):
        return policy in {"native", "dequantize", "requantize"}
    return not (policy == "legacy" and kind_of(kind) is Kind.UINT)
'''


def test_fix_1_says_kind_of_takes_a_dtype(tmp_path: Path) -> None:
    report = _grade("fix-1", KIND_OF_EVERYWHERE, tmp_path)
    assert not report.passed
    messages = " ".join(o.message for o in report.outcomes if not o.ok)
    assert "handed it to `kind_of`, which classifies a dtype only" in messages
    assert "a HandleKind carries its Kind in `.kind`" in messages
    assert "RouterLab's own" not in messages and "replace the TODO" not in messages


def status_for(count: int) -> str:
    """registry-3's answer, as a notebook cell writes it."""
    from routerlab.core.router.ir import READ_ONLY, READ_WRITE

    return READ_WRITE if count <= 1 else READ_ONLY  # type: ignore[return-value]


def wrong_status_for(count: int) -> str:
    from routerlab.core.router.ir import READ_ONLY

    return READ_ONLY  # type: ignore[return-value]


def test_check_refuses_code_under_a_name_the_starter_does_not_define(
        workspace: Workspace) -> None:
    """The checks call `status_for`: a function under another name would leave the starter's
    stub to be graded while the verdict seemed to be the function's."""
    file = Course(workspace).workspace.file_for(load_catalog().get("registry-3"))
    before = file.read_bytes() if file.exists() else None
    with pytest.raises(ExerciseError, match=r"registry-3 grades `status_for`, and check\(\) was "
                                            r"given `wrong_status_for`"):
        check("registry-3", wrong_status_for, dir=workspace.root)
    assert (file.read_bytes() if file.exists() else None) == before  # nothing written


def test_a_failing_try_keeps_the_last_passing_version(workspace: Workspace,
                                                       tmp_path: Path) -> None:
    exercise = load_catalog().get("registry-3")
    assert check("registry-3", status_for, dir=workspace.root).passed
    file = Course(workspace).workspace.file_for(exercise)
    passing = file.read_text(encoding="utf-8")
    cell = tmp_path / "later_cell.py"  # a later cell: the same name, a wrong body
    cell.write_text("from routerlab.core.router.ir import READ_ONLY\n\n\n"
                    "def status_for(count):\n    return READ_ONLY\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("later_cell", cell)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    view = check("registry-3", module.status_for, dir=workspace.root)
    assert not view.passed
    assert any(b.title == "your last passing version is kept" for b in view.blocks)
    assert file.read_text(encoding="utf-8") == passing  # what later checkpoints build on
    tries = list((workspace.root / ".routerlab" / "backup").glob("registry_3.*.py"))
    assert any("return READ_ONLY" in t.read_text(encoding="utf-8") for t in tries)
    assert check("registry-3", status_for, dir=workspace.root).passed  # a pass replaces it


@pytest.mark.parametrize("width", [60, 100])
def test_exercises_show_fills_a_statement_to_the_terminal(workspace: Workspace,
                                                          width: int) -> None:
    """The statement's hand breaks (at about 100 columns) are not wrapped again by the terminal:
    every paragraph and list item is filled to the width, so no line is a short stub followed by
    words that would have fitted on it."""
    from typer.testing import CliRunner

    from routerlab.cli.app import app

    for exercise_id in ("registry-1", "fix-1", "quant-2"):
        done = CliRunner().invoke(app, ["exercises", "show", exercise_id, "--plain", "--dir",
                                        str(workspace.root)],
                                  env={"NO_COLOR": "1", "COLUMNS": str(width)})
        assert done.exit_code == 0, done.output
        lines = done.output.splitlines()[1:]  # the title first
        prose = [line for line in lines if not line.lstrip().startswith(("|", "```", "#"))]
        assert all(len(line) <= width or " " not in line.strip() for line in prose), \
            [line for line in prose if len(line) > width]
        for line, after in zip(prose, prose[1:], strict=False):
            continues = after.startswith(" ") and not after.lstrip().startswith(("- ", "* ")) \
                if line.startswith(("- ", "  ")) else after.strip() and not after.startswith(
                    ("- ", "* ", " "))
            if line.strip() and continues and not line.startswith("Your file"):
                first = after.split()[0]
                assert len(line) + 1 + len(first) > width, (exercise_id, line, after)
