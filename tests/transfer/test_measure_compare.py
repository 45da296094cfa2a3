"""Measurements come from the backends' copy counters and the arrays really held; the comparison
lays every policy side by side."""

from __future__ import annotations

import numpy as np
import pytest

from routerlab.core import Runtime
from routerlab.core.base.errors import LimitError, RouterLabError
from routerlab.core.base.limits import MAX_HOPS
from routerlab.core.quant import parse_scheme, quantized_data_len
from routerlab.present.html import table
from routerlab.teaching.compare import COLUMNS, compare_policies
from routerlab.teaching.measure import (
    HOP_STAGES,
    held,
    measure_hop,
    measure_transfer,
    on_backend,
)

X = np.random.default_rng(1).standard_normal((8, 32)).astype(np.float32)
N = X.size


@pytest.mark.parametrize(("scheme", "path", "moved", "copies"), [
    ("q8s", "local", N + 4, 2),                    # values + (scale, global): two copies
    ("q8s:block=32:scale=f16:global=f32", "local", N + 8 * 2 + 4, 2),
    ("q8s", "bytes", N + 4, 2),                    # readback + upload of the canonical bytes
    ("q8s", "dispatch", N + 4, 2),                 # into_data to the client, from_data there
])
def test_native_moves_exactly_the_stored_bytes(scheme: str, path: str, moved: int,
                                               copies: int) -> None:
    m = measure_transfer(X, scheme, path=path, target="cpu:1" if path != "dispatch"
                         else "peer3/cpu:1@ndarray")
    hop = m.hops[0]
    assert hop.bytes_moved == moved == m.stored_bytes and hop.copies == copies
    assert hop.bit_exact and hop.q_changed == 0 and hop.max_abs_error == 0.0
    assert hop.bytes_moved == quantized_data_len(parse_scheme(m.scheme), X.shape)


def test_float_policies_move_the_f32_payload() -> None:
    dequantized = measure_transfer(X, "q8s", policy="dequantize").hops[0]
    requantized = measure_transfer(X, "q8s", policy="requantize").hops[0]
    assert dequantized.bytes_moved == 4 * N + 4 and dequantized.copies == 2
    assert requantized.bytes_moved == 4 * N and requantized.copies == 1
    over_bytes = measure_transfer(X, "q8s", policy="dequantize", path="bytes").hops[0]
    assert over_bytes.bytes_moved == 4 * N + 4 and over_bytes.bytes_copied == 2 * (4 * N + 4)


def test_the_q2f_drift_curve_is_measured_hop_by_hop() -> None:
    m = measure_transfer([-0.9, 0.5, 0.2], "q2f", policy="requantize", hops=3)
    assert [round(h.scales[0], 4) for h in m.hops] == [0.8, 1.0667, 1.4222]
    assert [h.q_changed_total for h in m.hops] == [0, 0, 0]
    assert [round(h.scale_drift, 4) for h in m.hops] == [0.3333, 0.7778, 1.3704]
    errors = [h.max_abs_error_total for h in m.hops]
    assert errors == sorted(errors) and round(errors[-1], 4) == 1.6444
    assert [h.source for h in m.hops] == ["cpu:0", "cpu:1", "cpu:0"]
    data = m.to_dict()
    assert data["hops"][2]["scales"] == m.hops[2].scales and data["scale_drift"] == \
        m.hops[2].scale_drift


@pytest.mark.parametrize(("policy", "error", "layer"), [
    ("reject", "TransferRejected", "client"), ("legacy", "BurnTodo", "session cpu:0")])
def test_a_failed_transfer_is_measured_as_a_failure(policy: str, error: str, layer: str) -> None:
    m = measure_transfer(X, "q8s", policy=policy, hops=2)
    assert not m.ok and m.hops == [] and m.failure.error == error and m.failure.layer == layer
    assert m.to_dict()["failure"]["error"] == error and m.view().styles == {0: "error"}


def test_progress_is_reported_through_a_plain_callback() -> None:
    """Within each hop too (its move, then its measuring), so a bar moves during a long hop."""
    seen: list[tuple[int, int, str]] = []
    measure_transfer(X, "q4s", hops=3, progress=lambda done, total, what: seen.append(
        (done, total, what)))
    assert [done for done, _, _ in seen] == [0, 0, 1, 2, 2, 3, 4, 4, 5, 6]
    assert {total for _, total, _ in seen} == {3 * HOP_STAGES}
    assert seen[1][2] == "hop 1: moving cpu:0 -> cpu:1" and seen[2][2] == "hop 1: measuring"
    for hops in (0, MAX_HOPS + 1, 9223372036854775808):  # refused before anything is made
        with pytest.raises(LimitError, match=f"hops must be between 1 and {MAX_HOPS}"):
            measure_transfer(X, "q4s", hops=hops)


def test_measure_hop_works_on_any_runtime() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    q = rt.quantize(rt.tensor(X, "cpu:0", "f32"), "q4f")
    moved, hop = measure_hop(rt, q, "cpu:1", policy="dequantize")
    assert hop.bit_exact and held(rt, moved).device == moved.device


def test_on_backend_applies_a_profile_unless_one_is_named() -> None:
    assert str(on_backend("cpu:0", "cubecl")) == "cpu:0@cubecl"
    assert str(on_backend("cpu:0@ndarray", "cubecl")) == "cpu:0@ndarray"
    assert str(on_backend("cpu:0", None)) == "cpu:0"


def test_comparison_side_by_side() -> None:
    comparison = compare_policies([-0.9, 0.5, 0.2], "q2f", hops=3)
    view = comparison.view()
    assert list(view.columns) == COLUMNS
    assert [row[0] for row in view.rows] == ["native", "dequantize", "requantize", "reject",
                                             "legacy"]
    assert view.rows[0][2] == 3 * 7 and view.rows[0][9] is True
    assert view.rows[2][9] is False and view.rows[3][1] == "refused (TransferRejected)"
    assert "<table>" in table(view)
    verdict = comparison.verdict()
    assert verdict.startswith("native is bit-exact; dequantize is bit-exact")
    assert "requantize drifts (scale ×2.37" in verdict and "reject refuses" in verdict
    assert "legacy panics like Burn (BurnTodo at crates/burn-router/src/interpreter.rs:98)" in \
        verdict
    data = comparison.to_dict()
    assert set(data) == {"hops", "verdict", "table", "policies"}
    assert data["policies"]["requantize"]["hops"][0]["scales"] == pytest.approx([0.8])
    assert comparison.get("native").bytes_moved == 21


def test_get_names_a_policy_that_was_not_compared() -> None:
    comparison = compare_policies([-0.9, 0.5, 0.2], "q2f", policies=["native"])
    assert comparison.get("native").ok
    with pytest.raises(RouterLabError, match=r"policy 'reject' was not compared here \(native\)"):
        comparison.get("reject")
