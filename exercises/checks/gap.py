"""Checks of the quantized-transfer gap at Burn 2c06be3: which wall fires, and what a panic on
the server leaves behind (crates/burn-router/src/interpreter.rs:88-127,
crates/burn-remote/src/server/session.rs; docs/burn.md#7-the-quantized-walls).

Both are predict exercises: the oracle runs the model's `legacy` policy, which replays Burn's
walls, on a fresh runtime.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core import RouterLabError, Runtime
from .base import Part, PredictSuite, choice
from .forms import yes_no

_FUNCTIONS = choice("get_tensor", "register_tensor_to_device", "read_tensor_async",
                    "register_tensor_data_id")
_STATES = choice("alive", "panicked", "hung")


def _quantized(rt: Runtime, device: str = "cpu:0") -> Any:
    return rt.quantize(rt.tensor(np.ones(8), device=device, dtype="f32"), "q4s")


# --- gap-1: which wall fires ------------------------------------------------------------------


def _wall_answers() -> dict[str, Any]:
    """Plan a legacy move of a quantized tensor on each path and read the walls it meets."""
    rt = Runtime()
    q = _quantized(rt)
    local = rt.plan_transfer(q, "cpu:1", policy="legacy")
    remote = rt.plan_transfer(q, "peer2/cpu:0", policy="legacy")
    target_arm = next(w for w in local.walls if w.function.endswith("register_tensor_to_device"))
    return {"LOCAL_FIRST": _first_panic(local), "BYTES_FIRST": _first_panic(remote),
            "TARGET_ARM_REACHED": bool(target_arm.reached)}


def _first_panic(plan: Any) -> str:
    """The bare name of the interpreter function whose wall a legacy transfer hits first."""
    wall = plan.channel_wall
    assert wall is not None, "a legacy quantized transfer meets a wall in a session"
    return str(wall.function.split("::")[-1])


walls = PredictSuite(
    "gap-1",
    parts=[
        Part("LOCAL_FIRST", "the interpreter function that panics first on the same-peer path",
             _FUNCTIONS),
        Part("BYTES_FIRST", "the interpreter function that panics first on the bytes path",
             _FUNCTIONS),
        Part("TARGET_ARM_REACHED", "whether any call reaches the target's Quantized arm", yes_no),
    ],
    oracle=_wall_answers,
)


# --- gap-2: panic, dead session, hung peer ------------------------------------------------------


def _state(ended: str | None) -> str:
    return "alive" if ended is None else ended.split(":")[0]


def _readable(rt: Runtime, tensor: Any) -> bool:
    try:
        rt.read(tensor)
    except RouterLabError:
        return False
    return True


MOVES = (["cpu:0", "cpu:1"], ["cpu:0", "cpu:2"], ["cpu:1", "cpu:0"], ["cpu:1", "cpu:2"],
         ["cpu:2", "cpu:0"], ["cpu:2", "cpu:1"])
"""gap-2's variants: the quantized tensor's device and where Burn's legacy move sends it."""


def _panic_answers(move: list[str] = MOVES[0]) -> dict[str, Any]:
    """Three sessions with a tensor each; then Burn's legacy move `move[0]` -> `move[1]` of a
    quantized tensor, and what survives it."""
    rt = Runtime()
    y = rt.tensor([1.0, 2.0], device="cpu:0", dtype="f32")
    z = rt.tensor([3.0, 4.0], device="cpu:1", dtype="f32")
    w = rt.tensor([5.0, 6.0], device="cpu:2", dtype="f32")
    q = _quantized(rt, move[0])
    try:
        rt.to_device(q, move[1], policy="legacy")
    except RouterLabError:
        pass
    states = {d: _state(rt.session(d).ended) for d in ("cpu:0", "cpu:1", "cpu:2")}
    return {"CPU0": states["cpu:0"], "CPU1": states["cpu:1"], "CPU2": states["cpu:2"],
            "Y_READABLE": _readable(rt, y), "Z_READABLE": _readable(rt, z),
            "W_READABLE": _readable(rt, w)}


panics = PredictSuite(
    "gap-2",
    parts=[
        Part("CPU0", "the state of cpu:0's session after the move", _STATES),
        Part("CPU1", "the state of cpu:1's session after the move", _STATES),
        Part("CPU2", "the state of cpu:2's session after the move", _STATES),
        Part("Y_READABLE", "whether y (an f32 tensor on cpu:0) can still be read", yes_no),
        Part("Z_READABLE", "whether z (an f32 tensor on cpu:1) can still be read", yes_no),
        Part("W_READABLE", "whether w (an f32 tensor on cpu:2) can still be read", yes_no),
    ],
    oracle=_panic_answers,
    mistakes={
        "thought only the source panics": lambda move: {
            f"CPU{move[1][-1]}": "alive",
            "YZW"[int(move[1][-1])] + "_READABLE": True},
        "thought the panic ends every session": lambda move: {
            "CPU0": "panicked", "CPU1": "panicked", "CPU2": "panicked",
            "Y_READABLE": False, "Z_READABLE": False, "W_READABLE": False},
    },
)
