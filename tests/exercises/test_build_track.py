"""The build track (issue 39): Burn's router types written whole by the learner, each graded
call by call against the model's, and a call trace that names the model's router function a
submission let run in its place."""

from __future__ import annotations

from pathlib import Path

import pytest
from build_substitutes import SUBSTITUTES, observed

from routerlab.core.router import handles as model_handles
from routerlab.core.router.handles import HandleContainer
from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.checks import suite_for
from routerlab.exercises.checks.build_common import TRACE
from routerlab.exercises.checks.build_trace import watching
from routerlab.exercises.engine.runner import Candidate, run_checks

TRACK = ("build-1", "build-2", "build-3", "build-4", "build-5", "build-6")


@pytest.mark.parametrize("exercise_id", TRACK)
def test_the_reference_solution_behaves_as_the_model_with_a_clean_trace(exercise_id: str) -> None:
    mine, model = observed(exercise_id, open_solution(load_catalog().get(exercise_id)))
    assert mine == model
    assert all(seen[-1] == [TRACE, None] for seen in mine)


MODEL_PIECES = [
    ("build-1", "HandleContainer, wrapped"), ("build-2", "RouterTensor"),
    ("build-3", "HandleContainer"), ("build-3", "TensorInterpreter"), ("build-4", "q_into_data"),
    ("build-5", "move_quantized"), ("build-6", "RouterClient"),
    *(("build-7", piece) for piece in (
        "HandleContainer", "RouterTensor", "TensorInterpreter", "q_into_data",
        "can_move_to_device", "move_quantized", "RouterClient", "to_device")),
    *(("build-8", piece) for piece in (
        "Session", "TensorInterpreter.register_op", "RouterClient.read_tensor")),
]
"""Per checkpoint, each of the learner's pieces the model's may replace (build_substitutes.py
holds the model's, appended to the reference solution as a learner would paste it): build-7
and build-8 run the whole router, so every piece of it is tried there."""


@pytest.mark.parametrize(("exercise_id", "piece"), MODEL_PIECES)
def test_a_model_piece_in_place_of_the_learners_fails_and_the_trace_names_it(
        exercise_id: str, piece: str) -> None:
    code, named = SUBSTITUTES[piece]
    mine, model = observed(exercise_id, open_solution(load_catalog().get(exercise_id)) + code)
    assert mine != model
    told = [seen[-1] for seen in mine]
    assert [TRACE, named] in told or ["raised", "CheckFailure", named] in told


def test_the_models_quantized_arm_called_by_name_is_named() -> None:
    solution = open_solution(load_catalog().get("build-3"))
    borrowed = solution.replace(
        "    def quantized_to_device(self, q: QPrimitive) -> QPrimitive:\n",
        "    def quantized_to_device(self, q: QPrimitive) -> QPrimitive:\n"
        "        return q_to_device(self.backend, q)\n\n"
        "    def unused(self, q: QPrimitive) -> QPrimitive:\n")
    assert borrowed != solution
    code = "from routerlab.core.fix.qtensor import q_to_device\n" + borrowed
    mine, _model = observed("build-3", code)
    assert [TRACE, "routerlab.core.fix.qtensor:q_to_device"] in [seen[-1] for seen in mine]


def test_the_trace_puts_every_function_back_and_lets_value_types_pass() -> None:
    from routerlab.core.fix.qtensor import QPrimitive

    get, free = HandleContainer.get, model_handles.HandleContainer.free
    with watching() as watch:
        QPrimitive(None, None)  # type: ignore[arg-type]  # a value type: allowed
        assert watch.first is None
        HandleContainer().has_handle(3)
    assert watch.first == "routerlab.core.router.handles:HandleContainer.__init__"
    assert HandleContainer.get is get and model_handles.HandleContainer.free is free
    with pytest.raises(RuntimeError), watching():
        raise RuntimeError("a failing probe")
    assert HandleContainer.get is get


def test_burns_panic_texts_word_for_word() -> None:
    """crates/burn-ir/src/handle.rs:97 `Should have handle for tensor {id:?}` and 106-108
    `Cannot get uninitialized tensor {id:?}. Tensor exist but with wrong status`, with
    `TensorId`'s derived Debug, `TensorId { value: N }` (crates/burn-ir/src/tensor.rs)."""
    exercise = load_catalog().get("build-1")
    suite = suite_for(exercise)
    check = next(c for c in suite.checks if c.name.startswith("a NotInit status"))
    assert check.probe is not None
    seen = dict(check.probe(suite.model_subject({"tid": 3, "other": 10})))
    assert seen["get_handle(3, NotInit) on a registered id"] == [
        "panics", "Cannot get uninitialized tensor TensorId { value: 3 }. Tensor exist but with "
                  "wrong status"]
    assert seen["get_handle(10, ReadOnly) on an id never registered"] == [
        "panics", "Should have handle for tensor TensorId { value: 10 }"]


def test_legacy_replays_burns_todo_text_and_reject_copies_nothing() -> None:
    """crates/burn-router/src/interpreter.rs:98: `todo!("Local transfer of {dtype:?} tensors
    is not supported yet")`, which Rust prints after `not yet implemented: `; the scheme as
    its derived Debug prints it (core/quant/debug.py cites cubecl-common scheme.rs:31-46)."""
    exercise = load_catalog().get("build-5")
    suite = suite_for(exercise)
    check = next(c for c in suite.checks if c.name.startswith("reject refuses"))
    assert check.probe is not None
    seen = dict(check.probe(suite.model_subject({"x": [0.5, -0.25, 0.125, 1.0],
                                                 "scheme": "q8s"})))
    assert seen["reject: the move"] == ["refused", "TransferRejected"]
    assert seen["legacy: the move"] == [
        "panics", "not yet implemented: Local transfer of QFloat(QuantScheme { value: Q8S, "
                  "store: Native, mode: Symmetric, tensor: None, block: None }) tensors is "
                  "not supported yet"]
    assert seen["legacy: (copies, bytes) on cpu:0 and cpu:1 after it"] == [[0, 0], [0, 0]]


def test_router_tensor_follows_burns_count_rules() -> None:
    """crates/burn-router/src/tensor.rs:67-87, 136-157: a shared use gives its reference back,
    the last use sends nothing (into_ir bumps the count its own drop takes away), and only the
    last drop sends `Drop` with ReadWrite."""
    exercise = load_catalog().get("build-2")
    suite = suite_for(exercise)
    check = next(c for c in suite.checks if c.name.startswith("Drop: only the last"))
    assert check.probe is not None
    seen = dict(check.probe(suite.model_subject({"tid": 5, "clones": 2, "rows": 3})))
    assert seen["drop one of two references: count left, ops sent"] == [1, []]
    assert seen["drop the last reference: ops sent"] == [["DropOp", [5, "ReadWrite", [3, 4],
                                                                      "f32"]]]


def test_the_learners_own_lines_are_counted() -> None:
    """The build track's size: the distinct non-blank lines of the reference solutions that no
    starter gives (the learner's own code; a class carried into a later checkpoint counts
    once)."""
    own: set[str] = set()
    for exercise_id in TRACK:
        exercise = load_catalog().get(exercise_id)
        starter = set((Path(str(exercise.folder)) / "starter.py").read_text().splitlines())
        new = {line for line in open_solution(exercise).splitlines()
               if line.strip() and line not in starter} - own
        assert len(new) >= 25, exercise_id
        own |= new
    assert len(own) >= 200


def test_a_wrong_line_in_the_sandbox_fails_and_the_solution_passes(tmp_path: Path) -> None:
    exercise = load_catalog().get("build-2")
    solution = open_solution(exercise)
    path = tmp_path / "build_2.py"
    path.write_text(solution)
    assert run_checks(exercise, Candidate(path, "build_2.py")).passed
    path.write_text(solution.replace("return READ_WRITE if count <= 1 else READ_ONLY",
                                     "return READ_WRITE if count < 1 else READ_ONLY"))
    assert not run_checks(exercise, Candidate(path, "build_2.py")).passed
