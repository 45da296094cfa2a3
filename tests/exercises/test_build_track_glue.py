"""build-7, the glue (issue 39 item 2): the tour's flow on the learner's whole router, every
class theirs, beside the model's (test_build_track.py puts each model class in place of a
learner's and sees the call trace name it); the move of a tensor already on its target device
is checked; the model side agrees with RouterLab's Runtime on every stored word; the track's
size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from build_substitutes import observed

from routerlab.core.base.data import TensorData
from routerlab.core.runtime import Runtime
from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.checks import build_glue
from routerlab.exercises.checks.base import to_data
from routerlab.exercises.checks.build_common import TRACE
from routerlab.exercises.engine.runner import Candidate, run_checks

TRACK = ("build-1", "build-2", "build-3", "build-4", "build-5", "build-6", "build-7",
         "build-8")


def _solution() -> str:
    return open_solution(load_catalog().get("build-7"))


def _observed(source: str) -> tuple[list[Any], list[Any]]:
    return observed("build-7", source)


def test_the_reference_router_runs_the_tour_as_the_model_with_a_clean_trace() -> None:
    mine, model = _observed(_solution())
    assert mine == model
    assert all(seen[-1] == [TRACE, None] for seen in mine)


def test_a_to_device_without_the_same_device_branch_fails() -> None:
    """Issue 39's sweep found that no capstone check moved a tensor already on its target
    device; here deleting that branch fails the flow's second visible check and the hidden one."""
    solution = _solution()
    branch = "    if source_device == target_device:\n        return tensor\n"
    assert branch in solution
    mine, model = _observed(solution.replace(branch, ""))
    assert mine[0] == model[0]
    assert mine[1] != model[1] and mine[2] != model[2]


def test_legacy_replays_burns_todo_text_and_consumes_nothing() -> None:
    """crates/burn-router/src/interpreter.rs:98, `todo!("Local transfer of {dtype:?} tensors is
    not supported yet")`: the guard refuses before the tensor is consumed, so its count and
    every registry are what they were after reject."""
    seen = dict(build_glue.tour(build_glue.glue.model_subject({}), [0.5, -0.25, 0.125, 1.0],
                                "q8s", 0))
    assert seen["legacy: the move of the tensor on cpu:0 to cpu:1"] == [
        "panics", "not yet implemented: Local transfer of QFloat(QuantScheme { value: Q8S, "
                  "store: Native, mode: Symmetric, tensor: None, block: None }) tensors is "
                  "not supported yet"]
    assert seen["reject: the move of the tensor on cpu:0 to cpu:1"] == [
        "refused", "TransferRejected"]
    after = [key for key in seen if key.startswith("after ")]
    assert seen[after[-1]] == seen[after[-2]] == seen[after[-3]]


def _held(runtime: Runtime, tensor: Any) -> list[Any]:
    q = runtime.handle(tensor.device, int(tensor.id)).tensor
    return [q.values.tolist(), q.scales.tolist(),
            None if q.global_scale is None else float(q.global_scale), str(tensor.device)]


@pytest.mark.parametrize("scheme", ["q8s", "q4s:block=2:scale=ue4m3:global=f32",
                                    "q8f:block=2:scale=f16"])
def test_the_checks_model_stores_what_routerlabs_runtime_stores(scheme: str) -> None:
    """The model side of the check (the model's classes, `model_to_device`) against the whole
    Runtime (core/moves.py) on the same flow: every stored word, scale and global, and where."""
    x = [0.7, -0.35, 0.1, 0.55]
    rt = Runtime()
    a = rt.from_data(TensorData.from_array(np.asarray(x, dtype=np.float32)), "cpu:0")
    q = rt.quantize(rt.add(rt.clone(a), a), scheme)
    keep = rt.clone(q)
    stored = [_held(rt, q)]
    shared = rt.to_device(q, "cpu:1", policy="native")
    stored.append(_held(rt, shared))
    unique = rt.to_device(keep, "cpu:1", policy="native")
    stored.append(_held(rt, unique))
    far = rt.to_device(unique, "peer2/cpu:0", policy="native")
    stored.append(_held(rt, far))
    hop = rt.to_device(shared, "cpu:0", policy="requantize")
    stored.append(_held(rt, hop))
    stored.append(_held(rt, rt.to_device(rt.clone(hop), "cpu:1", policy="dequantize")))
    plain = rt.to_device(rt.from_data(TensorData.from_array(np.asarray(x, dtype=np.float32)),
                                      "cpu:0"), "cpu:1", policy="requantize")
    seen = to_data(build_glue.tour(build_glue.glue.model_subject({}), x, scheme, 0))
    checked = [value[1][:3] + [value[1][4]] for _label, value in seen[2:8]]
    assert checked == stored
    assert dict(seen)[next(k for k, _ in seen if k.startswith("an f32 upload"))][1] == [
        rt.handle(plain.device, int(plain.id)).array.tolist(), "f32", "cpu:1"]


def test_the_sandbox_passes_the_reference_and_fails_a_wrong_path(tmp_path: Path) -> None:
    exercise = load_catalog().get("build-7")
    solution = _solution()
    path = tmp_path / "build_7.py"
    path.write_text(solution)
    assert run_checks(exercise, Candidate(path, "build_7.py")).passed
    path.write_text(solution.replace("if source_device.peer != target_device.peer:",
                                     "if source_device.peer == target_device.peer:"))
    assert not run_checks(exercise, Candidate(path, "build_7.py")).passed


def test_the_whole_tracks_own_lines_are_counted() -> None:
    """The build track's size: the distinct non-blank lines of the reference solutions that no
    starter gives, a class carried forward counted once: 350 with build-8, the server (264 for
    build-1..7), issue 39's goal (docs/exercises.md, "The build track", states the figure)."""
    own: set[str] = set()
    for exercise_id in TRACK:
        exercise = load_catalog().get(exercise_id)
        starter = set((Path(str(exercise.folder)) / "starter.py").read_text().splitlines())
        own |= {line for line in open_solution(exercise).splitlines()
                if line.strip() and line not in starter}
    assert len(own) >= 350, len(own)
