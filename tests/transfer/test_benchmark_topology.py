"""The benchmarks run on topologies Burn can have: a peer hosts one backend
(`crates/burn-remote/src/server/builder.rs:77-89`), so a runtime refuses a mixed peer, and a
benchmark written for the old topology would fail only when someone runs it. Each transfer case
moves a small tensor there and back on its own path; the GPU cases, which need CuPy to run, are
checked against the same topology rule and forced-path checks the runtime applies."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from routerlab.core import Runtime
from routerlab.core.base.devices import Path as TransferPath
from routerlab.core.base.devices import check_forced_path, check_topology, parse_device

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import gpu_transfer  # noqa: E402
import transfer  # noqa: E402


@pytest.mark.parametrize("case", list(transfer.PATHS))
def test_every_transfer_case_moves_on_its_path(case: str) -> None:
    source, target, forced = transfer.PATHS[case]
    rt = Runtime([source, target])
    x = rt.tensor(np.linspace(-1, 1, 4 * 64, dtype=np.float32).reshape(4, 64), source, "f32")
    q = rt.quantize(x, "q4s")
    mark = len(rt.trace)
    moved = rt.to_device(q, target, forced)
    kinds = {e.kind for e in rt.trace.read(mark)}
    assert ("dispatch" in kinds) == (forced == "dispatch")
    assert ("download" in kinds) == (forced is None and parse_device(source).peer
                                     != parse_device(target).peer)
    back = rt.to_device(moved, source, forced)
    assert back.device == parse_device(source)


@pytest.mark.parametrize("name, source, target, forced", gpu_transfer.PATHS)
def test_every_gpu_case_is_a_topology_the_runtime_accepts(name: str, source: str, target: str,
                                                          forced: str | None) -> None:
    devices = [parse_device(source), parse_device(target)]
    check_topology(devices)
    if forced is not None:
        check_forced_path(TransferPath.parse(forced), *devices)


def test_fixed_cost_times_real_moves_of_a_small_tensor_and_cleans_up() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    seconds = transfer.fixed_cost(rt, np.ones(transfer.FIXED_VALUES, np.float32), "q8s", None,
                                  rounds=3)
    assert seconds > 0
    takes = [e for e in rt.trace.read() if e.kind == "take"]
    assert len(takes) == 2 * (3 + 1)  # there and back, each round and the warm-up round
    assert all(rt.handle_ids(d) == [] for d in rt.devices)


def test_the_1_mi_goal_says_how_much_of_the_move_is_fixed_cost() -> None:
    case = {"path": "same-peer", "bits": 8, "mi": 1, "grain": "per tensor", "ratio_median": 2.0,
            "ratio_min": 1.5, "fixed_median_s": 40e-6, "contender": {"wall_median_s": 120e-6}}
    (goal,) = transfer.goals([case])
    assert goal.value == 2.0 and not goal.met
    assert "fixed cost" in goal.note and "40 of the move's 120 µs" in goal.note
