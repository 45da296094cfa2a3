"""The handle registry and a whole simulated flow, each paired with a bare dict loop.

    .venv/bin/python benchmarks/registry.py [--rounds 7] [--ops 100000] [--json OUT]

1. `HandleContainer` register + ReadWrite get pairs, trace recording included, against a plain
   dict insert + pop loop of the same length, interleaved round by round (benchmarks/_paired.py).
   Goal: at most 5x the dict loop's time (the median of the per-round ratios).
2. A 100k-op flow through the `Runtime` facade: each op one journaled step (IR built on the
   client, the session and the interpreter run on numpy arrays, the trace recorded), a transfer
   every 50 ops (local and bytes paths), reads and drops along the way, paired with a bare dict
   loop of the same length. Goal: at most 80x the dict loop's time (the median of the per-round
   ratios); wall and CPU time are printed beside it, and the same flow with every op on the
   readable path (`Runtime(fast=False)`) against the fast path. The trace stays bounded
   (`Trace.CAP` events; docs/performance.md), which the run checks.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from _paired import Goal, finish, paired

from routerlab.core import READ_WRITE, HandleContainer, Runtime
from routerlab.core.base.trace import Trace

PAIRS = 300_000


def bare_dict(n: int) -> None:
    """n insert + pop pairs on a plain dict: the floor any registry pays."""
    handles: dict[int, object] = {}
    handle = object()
    for i in range(n):
        handles[i] = handle
        handles.pop(i)


def container_pairs(n: int) -> None:
    """n `register` + ReadWrite `get` pairs, each traced, with plain-int ids (the hot path's)."""
    container = HandleContainer("cpu:0", Trace())
    handle = object()
    register, get = container.register, container.get
    for i in range(n):
        register(i, handle)
        get(i, READ_WRITE)
    assert container.num_handles() == 0


def flow(n: int, fast: bool = True) -> Runtime:
    """An n-op program through the facade (`fast=False`: every op on the readable path);
    returns the runtime (its trace is checked)."""
    rt = Runtime(["cpu:0", "cpu:1", "peer2/cpu:0"], fast=fast)
    x = rt.tensor([[1.0, 2.0], [3.0, 4.0]], "cpu:0", "f32")
    targets = ["cpu:1", "peer2/cpu:0", "cpu:0"]
    for i in range(n):  # the values grow to inf, on purpose (as in Burn, the ops do not warn)
        x = rt.add(x, rt.clone(x)) if i % 2 else rt.mul(x, rt.clone(x))
        if i % 50 == 49:
            x = rt.to_device(x, targets[(i // 50) % 3])
        if i % 1000 == 999:
            rt.read(x)
            rt.drop(rt.clone(x))
    rt.drop(x)
    assert all(rt.handle_ids(d) == [] for d in rt.devices)
    return rt


def run(rounds: int, ops: int) -> dict[str, Any]:
    pair = paired(lambda: container_pairs(PAIRS), lambda: bare_dict(PAIRS), rounds=rounds)
    rate = PAIRS / statistics.median(pair.contender.wall)
    cpu_rate = PAIRS / statistics.median(pair.contender.cpu)
    print(f"registry: {rate:,.0f} register+get pairs/s (median round; {cpu_rate:,.0f}/s of CPU "
          f"time), {pair.median:.2f}x a bare dict loop (paired median; CPU {pair.cpu_median:.2f}x)")
    flow_pair = paired(lambda: flow(ops), lambda: bare_dict(ops), rounds=max(3, rounds // 2))
    walls, cpus = flow_pair.contender.wall, flow_pair.contender.cpu
    trace = flow(ops).trace
    kept, recorded = len(trace.events), len(trace)
    wall = statistics.median(walls)
    print(f"flow: {ops:,} ops in {wall:.2f} s wall (median of {len(walls)}), "
          f"{statistics.median(cpus):.2f} s CPU; {flow_pair.median:.0f}x a bare dict loop")
    fast = paired(lambda: flow(ops), lambda: flow(ops, fast=False), rounds=max(3, rounds // 2))
    print(f"flow, fast path against the readable path alone: {fast.median:.2f}x its time")
    goals = [Goal("registry get/register pairs vs a bare dict loop", pair.median, 5.0, "<=",
                  note=f"({rate / 1e6:.2f} M pairs/s; {cpu_rate / 1e6:.2f} M/s of CPU time; "
                       f"min {pair.min:.1f}x)"),
             Goal(f"{ops // 1000}k-op flow vs a bare dict loop of the same ops",
                  flow_pair.median, 80.0, "<=",
                  note=f"({wall:.2f} s wall, CPU {statistics.median(cpus):.2f} s; "
                       f"{wall / ops * 1e6:.1f} µs an iteration: a clone and an op, a move every "
                       f"50; the readable path alone takes {1 / fast.median:.2f}x the fast "
                       "path's time)"),
             Goal(f"trace events kept after the {ops // 1000}k-op flow (Trace.CAP)", kept,
                  Trace.CAP, "<=", unit="", note=f"({recorded:,} recorded)")]
    return {"pairs": PAIRS, "pairs_per_second": rate, "pairs_per_cpu_second": cpu_rate,
            "registry": pair.to_dict(),
            "flow_ops": ops, "flow": flow_pair.to_dict(), "fast_vs_readable": fast.to_dict(),
            "flow_wall_median_s": wall,
            "flow_cpu_median_s": statistics.median(cpus), "goals": [g.to_dict() for g in goals]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--ops", type=int, default=100_000)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    start = time.perf_counter()
    results = run(args.rounds, args.ops)
    print(f"({time.perf_counter() - start:.0f} s)")
    finish(results, args.json)


if __name__ == "__main__":
    main()
