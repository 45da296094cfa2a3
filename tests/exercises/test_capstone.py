"""The capstone (issue 32): the learner's own pieces wired into one router, the quantized arm they
write, the tour's flow bit-exact against the model, and a missing piece that runs as the model's,
marked, so the router runs at every stage and says what is left."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from routerlab.core import Runtime
from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.checks.base import Submission, to_data
from routerlab.exercises.checks.capstone import PIECES, capstone, missing, tour_flow
from routerlab.notebook.capstone import MODELS_PIECE, written, your_router


@pytest.fixture(scope="module")
def pieces() -> dict[str, Any]:
    """The capstone's sealed solution: every piece, and the arm, as a learner would write them."""
    space: dict[str, Any] = {}
    exec(compile(open_solution(load_catalog().get("capstone-1")), "solution", "exec"), space)  # noqa: S102
    return space


PARAMS = load_catalog().get("capstone-1").variant.defaults()
"""The catalog's own variant: what the notebook shows and the seal was made with."""


def _observed(sub: Any) -> list[Any]:
    return [to_data(check.probe(sub)) for check in capstone.checks]


def test_every_piece_of_the_solution_is_a_capstone_piece(pieces: dict[str, Any]) -> None:
    assert all(callable(pieces.get(p.name)) for p in PIECES)


def test_the_arm_alone_runs_the_whole_flow_with_the_models_pieces_listed(
        pieces: dict[str, Any]) -> None:
    alone = Submission(SimpleNamespace(register_quantized=pieces["register_quantized"]), PARAMS)
    assert missing(alone) == [p.name for p in PIECES if p.name != "register_quantized"]
    mine, model = _observed(alone), _observed(capstone.model_subject(PARAMS))
    assert mine[0] != model[0], "the first check says what is left"
    assert mine[1:] == model[1:], "the rest of the router runs on the model's pieces, exact"


def test_a_wrong_piece_shows_in_the_flow_not_only_in_its_own_checkpoint(
        pieces: dict[str, Any]) -> None:
    def pack_u32(values: list[int], bits: int) -> list[int]:  # the last value in the low bits
        return pieces["pack_u32"](list(reversed(values)), bits)

    sub = Submission(SimpleNamespace(register_quantized=pieces["register_quantized"],
                                     pack_u32=pack_u32))
    x = np.linspace(-2.0, 3.0, 32, dtype=np.float32).reshape(2, 16)
    scheme = "q4s:block=8:scale=ue4m3:global=f32:store=packed-u32"
    got = dict(tour_flow(sub, x, scheme, "cubecl"))
    want = dict(tour_flow(capstone.model_subject(), x, scheme, "cubecl"))
    label = "quantized on cpu:0: values, scales, global, scheme, device"
    assert got[label][0] != want[label][0] and got[label][1:] == want[label][1:]


def test_the_notebook_router_marks_each_missing_piece_and_runs_at_every_stage(
        pieces: dict[str, Any]) -> None:
    def get_handle(handles: Any, tensor_id: Any, status: Any) -> Any:
        raise NotImplementedError  # a stub, as the notebook ships it

    empty = your_router(get_handle)
    assert empty.exact and not empty.stopped
    assert set(empty.left) == {p.name for p in PIECES}
    assert [row[3] for row in empty.pieces.rows] == [MODELS_PIECE] * len(PIECES)
    assert "still the model's" in repr(empty) and "<table" in empty._repr_html_()
    full = your_router(*(pieces[p.name] for p in PIECES))
    assert full.exact and full.left == () and "every piece yours" in repr(full)
    assert written(get_handle, pieces["get_handle"]) == (pieces["get_handle"],)


def test_a_piece_that_raises_stops_the_router_with_its_error_not_a_traceback(
        pieces: dict[str, Any]) -> None:
    def status_for(count: int) -> Any:
        from routerlab.core import READ_WRITE

        return {1: READ_WRITE}[count]  # a KeyError for a shared tensor

    stopped = your_router(status_for, pieces["register_quantized"])
    assert not stopped.exact and stopped.stopped.startswith("KeyError")
    assert "Your router stopped" in repr(stopped)



def test_an_arm_that_copies_onto_the_device_the_tensor_is_on_fails_a_hidden_check() -> None:
    """Burn's router returns the tensor itself when its device is the target
    (crates/burn-router/src/ops/tensor.rs:89-94): the model's runtime does, and the sealed
    solution without that shortcut in its arm (a copy onto the same device) fails the hidden
    check that hands the arm such a tensor, and no other check (the runtime never does)."""
    rt = Runtime(["cpu:0"])
    q = rt.quantize(rt.tensor(np.linspace(-1, 1, 8, dtype=np.float32), "cpu:0", "f32"), "q8s")
    before = rt.bytes_copied()
    assert rt.to_device(q, "cpu:0", policy="native") is q and rt.bytes_copied() == before

    shortcut = ("    if q.device == backend.device:\n"
                "        handles.register(tensor_id, q)  # same device: nothing to copy\n"
                "        return\n")
    source = open_solution(load_catalog().get("capstone-1"))
    assert shortcut in source
    space: dict[str, Any] = {}
    exec(compile(source.replace(shortcut, ""), "solution", "exec"), space)  # noqa: S102
    sub = Submission(SimpleNamespace(**{p.name: space[p.name] for p in PIECES}), PARAMS)
    model = capstone.model_subject(PARAMS)
    failed = [check.name for check in capstone.checks
              if to_data(check.probe(sub)) != to_data(check.probe(model))]
    assert failed == ["a tensor already on the target device is registered as it is"]
