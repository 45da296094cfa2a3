"""benchmarks/remote.py runs (its numbers are the benchmark's business, never a test's)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import remote  # noqa: E402


def test_the_remote_benchmark_runs_both_pairs(peers: dict[str, str]) -> None:
    moved = remote.move_vs_raw(peers, 1, rounds=1)
    assert moved["bytes"] > 1 << 20 and moved["rounds"] == 1
    step = remote.small_step(peers, steps=3, rounds=1)
    assert step["served_us_per_step"] > 0 and step["in_process_us_per_step"] > 0
