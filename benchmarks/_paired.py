"""Paired, interleaved timing: the one way every RouterLab benchmark compares two things.

A contender and its baseline run in the same round, one right after the other, in an order that
alternates from round to round (contender first in even rounds, baseline first in odd ones), so
load drift on a shared machine lands on both sides of each ratio instead of in it. Each round
gives one ratio `contender / baseline`; the report is the min and the median of those ratios
over the rounds (never a best contender over a best baseline taken at different moments), with
wall time and process CPU time (all threads) side by side.

    result = paired(lambda: move(), lambda: raw_copy(), rounds=7)
    result.median, result.min        # ratios of wall times
    result.to_dict()                 # everything, for run_all.py's JSON

A callable may return something to free: it is dropped after the clock stops, and the time that
takes (`free_s`) is measured on its own, so freeing never hides in, or is missing from, the
contender's figure. `gc` is collected once before the first round (collecting before every round
walks every object and evicts the caches: it made both sides of a 1 MiB move twice as slow) and
disabled while a round runs.
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn


@dataclass
class Side:
    """The samples of one side: wall, CPU and freeing time per round, in seconds."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    free: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, float]:
        return {"wall_min_s": min(self.wall), "wall_median_s": statistics.median(self.wall),
                "cpu_median_s": statistics.median(self.cpu),
                "free_median_s": statistics.median(self.free)}


@dataclass
class Paired:
    """Per-round ratios of a contender to its baseline."""

    ratios: list[float]
    cpu_ratios: list[float]
    contender: Side
    baseline: Side

    @property
    def min(self) -> float:
        return min(self.ratios)

    @property
    def median(self) -> float:
        return statistics.median(self.ratios)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu_ratios)

    def to_dict(self) -> dict[str, Any]:
        return {"rounds": len(self.ratios), "ratio_min": self.min, "ratio_median": self.median,
                "cpu_ratio_median": self.cpu_median, "contender": self.contender.to_dict(),
                "baseline": self.baseline.to_dict()}


def timed(run: Callable[[], Any], side: Side) -> None:
    """One sample: wall and CPU time of `run()`, then the time to drop what it returned."""
    start, cpu = time.perf_counter(), time.process_time()
    kept = run()
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    start = time.perf_counter()
    del kept
    side.free.append(time.perf_counter() - start)
    side.wall.append(wall)
    side.cpu.append(used)


def paired(contender: Callable[[], Any], baseline: Callable[[], Any], rounds: int = 7,
           between: Callable[[], Any] | None = None, warmup: int = 1) -> Paired:
    """Interleave `contender` and `baseline` for `rounds` rounds (after `warmup` untimed ones),
    alternating which goes first; `between()` runs untimed after each contender call (to move a
    tensor back, say)."""
    mine, theirs = Side(), Side()
    gc.collect()
    for r in range(warmup + rounds):
        gc.disable()
        try:
            a, b = (Side(), Side()) if r < warmup else (mine, theirs)
            for which in ((0, 1) if r % 2 == 0 else (1, 0)):
                if which == 0:
                    timed(contender, a)
                    if between is not None:
                        between()
                else:
                    timed(baseline, b)
        finally:
            gc.enable()
    ratios = [c / b for c, b in zip(mine.wall, theirs.wall, strict=True)]
    cpu = [c / max(b, 1e-9) for c, b in zip(mine.cpu, theirs.cpu, strict=True)]
    return Paired(ratios, cpu, mine, theirs)


@dataclass
class Goal:
    """One line of the goals table: a measured value against its limit."""

    name: str
    value: float
    limit: float
    better: str  # "<=" or ">="
    unit: str = "x"
    note: str = ""

    @property
    def met(self) -> bool:
        return self.value <= self.limit if self.better == "<=" else self.value >= self.limit

    def to_dict(self) -> dict[str, Any]:
        return {"goal": self.name, "value": self.value, "limit": self.limit,
                "better": self.better, "unit": self.unit, "met": self.met, "note": self.note}


def goal_line(goal: dict[str, Any]) -> str:
    """One printed line for a goal of `Goal.to_dict()`: met or MISSED, value, limit, note."""
    return (f"{'met   ' if goal['met'] else 'MISSED'} {goal['goal']}: {goal['value']:.3g}"
            f"{goal['unit']} (goal {goal['better']} {goal['limit']:g}{goal['unit']}) "
            f"{goal['note']}").rstrip()


def finish(results: dict[str, Any], json_path: str | None) -> NoReturn:
    """Print each goal's line, write the results when asked, and exit 1 if a goal was missed
    (the one ending every benchmark command shares)."""
    for goal in results["goals"]:
        print(goal_line(goal))
    if json_path:
        with open(json_path, "w") as out:
            json.dump(results, out, indent=1)
    sys.exit(0 if all(g["met"] for g in results["goals"]) else 1)
