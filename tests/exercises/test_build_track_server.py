"""build-8, the server (issue 39 items 1-2): the learner's `Session` runs their interpreter's op
arms in FIFO order, so the tour's add, quantize, drops and reads run on the learner's code too
(test_build_track.py puts each model piece in place of the learner's and sees the call trace
name it); the model side of the check agrees with RouterLab's own Runtime."""

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
from routerlab.exercises.checks import build_server
from routerlab.exercises.checks.base import to_data
from routerlab.exercises.checks.build_common import TRACE
from routerlab.exercises.engine.runner import Candidate, run_checks


def _solution() -> str:
    return open_solution(load_catalog().get("build-8"))


def _observed(source: str) -> tuple[list[Any], list[Any]]:
    return observed("build-8", source)


def test_the_reference_server_runs_every_check_as_the_model_with_a_clean_trace() -> None:
    mine, model = _observed(_solution())
    assert mine == model
    assert all(seen[-1] == [TRACE, None] for seen in mine[:4])


def test_an_eager_session_fails_the_fifo_check() -> None:
    """A session that runs each task as it is submitted is no FIFO: the registries before the
    sync differ (worker.rs:9-18: the submit handler only forwards)."""
    solution = _solution()
    queued = "        self.queue.append((op, answer))\n"
    assert queued in solution
    mine, model = _observed(solution.replace(queued, queued + "        self.run()\n"))
    assert mine[0] != model[0] and mine[2] != model[2]
    assert mine[1] == model[1]


def test_a_panic_replays_burns_text_and_ends_only_its_session() -> None:
    """crates/burn-router/src/interpreter.rs:2107-2114: no handler for a custom op's id panics
    with this text; the worker has no catch_unwind, so cpu:0's session ends, frees its handles
    and never runs the upload behind the panic, while cpu:1's goes on."""
    seen = dict(to_data(build_server.panics(build_server.server.model_subject({}),
                                            [0.5, -0.25, 0.125, 1.0], 0)))
    assert seen["cpu:0's session runs: what it did"] == [
        "panics", "No custom-op handler registered for `fused_gelu`. Register one on the server "
                  "via `CustomOpRegistry`/the server builder before starting it."]
    queued = seen["the custom op and an upload behind it queued on cpu:0"]
    after = seen["then: every registry and copy count"]
    assert queued[0][0] == [0] and after[0][0] == []
    assert after[1][0] == queued[1][0]  # the upload behind the panic never copied its bytes
    assert seen["an upload on cpu:0 after the panic"] == ["refused", "SessionEnded"]
    # ids 0-3: the two uploads, the custom op's output, the upload behind it; 4: the refused
    # upload, whose id was minted before its submit was refused; 5: the add on cpu:1
    assert seen["cpu:1 goes on: an add, a sync, the registries"][1][1][0] == [[], [5], []]


@pytest.mark.parametrize("scheme", ["q8s", "q4s:block=2:scale=ue4m3:global=f32"])
def test_the_checks_model_server_computes_what_routerlabs_runtime_computes(scheme: str) -> None:
    """The model side of the FIFO check (the model's interpreter behind `ModelSession`) against
    the whole Runtime, whose sessions are RouterLab's own (core/router/session.py): the add,
    the quantize, the dequantize and the reads, byte for byte."""
    x = [0.7, -0.35, 0.1, 0.55]
    seen = dict(to_data(build_server.fifo(build_server.server.model_subject({}), x, scheme, 0)))
    reads = next(v for k, v in seen.items() if k.startswith("reads of"))[0]
    rt = Runtime()
    a = rt.from_data(TensorData.from_array(np.asarray(x, dtype=np.float32)), "cpu:0")
    b = rt.from_data(TensorData.from_array(np.asarray(x, dtype=np.float32)[::-1] * 2), "cpu:0")
    q = rt.quantize(rt.add(a, b), scheme)
    back = rt.read_data(rt.dequantize(rt.clone(q)), consume=True)
    assert reads[0][0] == bytes(back.bytes).hex()
    assert reads[1][0] == bytes(rt.read_data(q, consume=True).bytes).hex()


def test_the_sandbox_passes_the_reference_and_fails_a_session_that_keeps_its_queue(
        tmp_path: Path) -> None:
    exercise = load_catalog().get("build-8")
    solution = _solution()
    path = tmp_path / "build_8.py"
    path.write_text(solution)
    assert run_checks(exercise, Candidate(path, "build_8.py")).passed
    path.write_text(solution.replace("                self.queue.clear()\n", ""))
    assert not run_checks(exercise, Candidate(path, "build_8.py")).passed
