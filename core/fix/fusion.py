"""Which wall a legacy quantize meets: Burn's client-side `unimplemented!()` or the server's
`todo!()`, decided by the `fusion` feature and by the size of the graph the quantize lands in.

On a bare `BackendRouter` (burn-remote's default features), `quantize`, `quantize_dynamic` and
`dequantize` are `unimplemented!()` on the client (`crates/burn-router/src/ops/qtensor.rs:15-32`):
nothing is submitted. With `fusion`, `Fusion::quantize` registers a `Quantize` op in the client's
stream (`crates/burn-fusion/src/ops/qtensor.rs:44-90`), and the router's greedy fuser collects the
ops of the stream until the next sync point. Its graph is *ready* only with more than one op
(`crates/burn-router/src/fusion.rs:254-259`): such a graph is sent to the server, whose interpreter
arm is `todo!()` and ends the session (`crates/burn-router/src/interpreter.rs:1390-1391`). A lone
op is no graph: burn-fusion runs it op by op (`crates/burn-fusion/src/search/block.rs:169-174`),
and the `Quantize` op's `execute` calls `B::quantize` on the router, the client's
`unimplemented!()` again (`crates/burn-fusion/src/ops/qtensor.rs:55-69`).

Nothing of a fused stream runs before a sync point drains it (a read, or a move out of the device):
the router's fuser never closes itself (`crates/burn-router/src/fusion.rs:154-159`). So a lone
`Quantize` waits in the stream, the ops registered after it join its graph, and its wall fires at
the drain: the server's `todo!()` if any op joined, the client's `unimplemented!()` if none
(`held_in_stream`, `RouterClient.drain`). RouterLab counts the ops a device's client registered
since its last sync point (`RouterClient.unsynced`) and adds the ops of the call: a calibrated
quantize is Burn's default `quantize_dynamic`, which computes the range and the scales with ops
of its own before `Quantize` (`crates/burn-backend/src/backend/ops/qtensor.rs:144-149`), so it
never stands alone; given scales stand for a scales tensor already on the device.
"""

from __future__ import annotations

from ..base.errors import BurnUnimplemented

SRC_ROUTER_QTENSOR = "crates/burn-router/src/ops/qtensor.rs"
SRC_FUSION_QTENSOR = "crates/burn-fusion/src/ops/qtensor.rs:55-69"
SRC_GRAPH_READY = "crates/burn-router/src/fusion.rs:254-259"
QUANTIZE_LINE, QUANTIZE_DYNAMIC_LINE, DEQUANTIZE_LINE = 20, 27, 31
CALIBRATION_OPS = 2
"""At least the range and the scale ops that Burn's default `quantize_dynamic` registers before
`Quantize` (`compute_range`, `compute_q_params`); how many exactly does not matter here, only
that the graph then holds more than one op."""


def graph_size(unsynced: int, *, calibrated: bool) -> int:
    """The ops of the fused graph the quantize (or dequantize) ends up in: what the stream
    already holds, the calibration ops, and the op itself."""
    return unsynced + (CALIBRATION_OPS if calibrated else 0) + 1


def held_in_stream(*, fusion: bool, unsynced: int, calibrated: bool) -> bool:
    """Whether a legacy quantize waits in the fusion stream: a lone `Quantize` is registered
    there (`Fusion::quantize`) and nothing runs until the next sync point drains the stream
    (`crates/burn-router/src/fusion.rs:154-159`). The ops registered after it, up to that read,
    join its graph: with any of them it reaches the server's `todo!()`; alone it meets the
    client's `unimplemented!()`, at the read either way (`RouterClient.drain`)."""
    return fusion and graph_size(unsynced, calibrated=calibrated) == 1


def legacy_quantize_wall(*, fusion: bool, unsynced: int, calibrated: bool,
                         dequantize: bool = False) -> BurnUnimplemented | None:
    """The client-side wall a legacy quantize (or dequantize) meets, or None when the op travels
    to the server inside a graph (where the interpreter's arm is `todo!()`)."""
    line = DEQUANTIZE_LINE if dequantize else (QUANTIZE_DYNAMIC_LINE if calibrated and not fusion
                                               else QUANTIZE_LINE)
    if not fusion:
        return BurnUnimplemented(f"{SRC_ROUTER_QTENSOR}:{line}")
    if graph_size(unsynced, calibrated=calibrated) > 1:
        return None
    wall = BurnUnimplemented(f"{SRC_ROUTER_QTENSOR}:{line}")
    wall.effects = (f"under fusion a lone op is no graph ({SRC_GRAPH_READY}): burn-fusion runs it "
                    f"op by op, calling the router's own method on the client "
                    f"({SRC_FUSION_QTENSOR}); nothing reached the server",)
    return wall
