"""Every RouterLab benchmark in one run: one JSON file of results, a plot, and the goals table.

    .venv/bin/python benchmarks/run_all.py [--out benchmarks/results] [--quick]

Runs, in this order, in this process or (for memory and start-up) in fresh child processes:
transfer.py (every path: same-peer, cross-peer, cross-peer across backends and Dispatch; 8/4/2-bit,
per tensor and per block, at 1, 16 and 64 Mi values),
quantize.py (against torch when installed), registry.py (registry pairs, the 100k-op flow,
the trace bound), cli_start.py, simulate.py (a long scenario drawn against its JSON), memory.py,
remote.py (two served peers: a 64 Mi cross-peer move against a raw loopback send, and a small
step), classroom.py (a student's regrade, one check and
a class of 200, against loading the model), and gpu_transfer.py's paired goal (skipped with
the reason when no GPU is usable). Writes `results.json` (every measurement and every goal),
`transfer.png` (median move/copy ratio against size, one panel per path) and `goals.md` (the
table the README shows), then prints the table. Exit status 1 when a goal is missed.

Every ratio is paired: the contender and its baseline interleaved in rotated order in the same
run (benchmarks/_paired.py), the median of at least 7 rounds judged, the min shown beside it.
`--quick` (1 Mi transfers, fewer rounds, a 4000x4000 transfer) checks that the scripts run; its
numbers are not the ones to report.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import classroom
import cli_start
import gpu_transfer
import memory
import numpy as np
import quantize
import registry
import remote
import simulate
import transfer
from _paired import goal_line

HERE = Path(__file__).resolve().parent


def plot(cases: list[dict[str, Any]], out: Path) -> None:
    """Median move/copy ratio against size, one panel per path, one line per scheme."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = list(transfer.PATHS)
    fig, axes = plt.subplots(1, len(paths), figsize=(4.5 * len(paths), 4), sharey=True)
    for ax, path in zip(axes, paths, strict=True):
        for bits in transfer.BITS:
            for grain, style in zip(transfer.GRAINS, ("-", "--"), strict=True):
                points = sorted((c["mi"], c["ratio_median"]) for c in cases
                                if c["path"] == path and c["bits"] == bits and c["grain"] == grain)
                if points:
                    ax.plot(*zip(*points, strict=True), style, marker="o",
                            label=f"Q{bits}S {grain}")
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        source, target, forced = transfer.PATHS[path]
        ax.set_title(f"{path}: {source} -> {target}" + (f" ({forced})" if forced else ""),
                     fontsize=9)
        ax.set_xlabel("Mi values")
    axes[0].set_ylabel("native move / raw copy of the same bytes (median)")
    axes[-1].legend(fontsize=8)
    fig.suptitle("RouterLab native quantized moves against a raw copy (paired, lower is better)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def table(goals: list[dict[str, Any]]) -> str:
    lines = ["| goal | measured | limit | |", "|---|---|---|---|"]
    for g in goals:
        value = f"{g['value']:.3g}{g['unit']}"
        note = f" {g['note']}" if g["note"] else ""
        lines.append(f"| {g['goal']} | {value}{note} | {g['better']} {g['limit']:g}{g['unit']} "
                     f"| {'met' if g['met'] else '**missed**'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE / "results"))
    parser.add_argument("--quick", action="store_true", help="a smoke run, not for reporting")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    sizes, rounds = ([1], 7) if args.quick else ([1, 16, 64], 7)
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "numpy": np.__version__, "platform": platform.platform()},
        "transfer": transfer.run(sizes, rounds),
        "quantize": quantize.run(4 if args.quick else 16, 7 if args.quick else 9),
        "registry": registry.run(7, 20_000 if args.quick else 100_000),
        "cli_start": cli_start.run(7 if args.quick else 15),
        "simulate": simulate.run(2_000 if args.quick else 10_000, 3, every=False),
        "memory": memory.run(16 if args.quick else 64, 4000 if args.quick else 16000),
        "remote": remote.run(4 if args.quick else 64, 7, 50 if args.quick else 200),
        "classroom": classroom.run(3 if args.quick else 5, 8 if args.quick else 200),
    }
    gpu = gpu_transfer.paired_goals()
    if isinstance(gpu, str):
        print(f"gpu: skipped: {gpu}")
        results["gpu"] = {"skipped": gpu, "goals": []}
    else:
        results["gpu"] = {"goals": [g.to_dict() for g in gpu]}
    goals = [g for part in results.values() if isinstance(part, dict)
             for g in part.get("goals", [])]
    results["goals"] = goals
    results["seconds"] = time.perf_counter() - start
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    plot(results["transfer"]["cases"], out / "transfer.png")
    (out / "goals.md").write_text(table(goals))
    print()
    for goal in goals:
        print(goal_line(goal))
    print(f"\n{sum(g['met'] for g in goals)}/{len(goals)} goals met in "
          f"{results['seconds'] / 60:.1f} min; wrote {out}/results.json, transfer.png, goals.md")
    sys.exit(0 if all(g["met"] for g in goals) else 1)


if __name__ == "__main__":
    main()
