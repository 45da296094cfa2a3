"""This checkout's per-step costs against another checkout's, measured side by side.

    .venv/bin/python benchmarks/versus.py OTHER [--rounds 6]

`OTHER` is another checkout of RouterLab (`git worktree add /tmp/before HEAD~3`, say). Each round
runs one fresh process per checkout, in alternating order, and each process measures, in CPU time
of its thread (`time.thread_time`: a shared machine's load steals wall time, not this), the best
of 15 batches of:

- a flow iteration: a clone and an `add` on a 2x2 tensor (`benchmarks/registry.py`'s flow is
  made of these), and the same count of bare dict insert + pop pairs, whose ratio is the flow's;
- a native Q8S same-peer move of 1 Ki values (the router's fixed cost per move) and of 1 Mi
  values (`benchmarks/transfer.py`'s 1 Mi case), and a raw copy of the 1 Mi move's bytes.

It prints each figure for both checkouts and their ratio, this / other (median over rounds):
below 1, this checkout is faster. This is how a refactoring of the hot path shows what it cost
or bought, which `registry.py` and `transfer.py` (wall time, paired with their own baselines)
cannot separate from the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
FIGURES = ("flow iteration µs", "flow / dict loop", "move 1 Ki µs", "move 1 Mi µs",
           "move 1 Mi / raw copy")


def best(run: Callable[[int], None], n: int, batches: int = 15) -> float:
    """The fastest of `batches` batches of `run(n)`, in thread CPU µs per call."""
    times = []
    for _ in range(batches):
        start = time.thread_time()
        run(n)
        times.append((time.thread_time() - start) / n)
    return min(times) * 1e6


def measure() -> dict[str, float]:
    """This process's figures (the routerlab it imports is the checkout measured)."""
    import gc

    import numpy as np

    from routerlab.core import Runtime

    rt = Runtime(["cpu:0", "cpu:1"])
    held = [rt.tensor([[1.0, 2.0], [3.0, 4.0]], "cpu:0", "f32")]

    def flow(n: int) -> None:
        x = held[0]
        for _ in range(n):
            x = rt.add(x, rt.clone(x))
        held[0] = x

    def bare(n: int) -> None:
        handles: dict[int, object] = {}
        for i in range(n):
            handles[i] = held
            handles.pop(i)

    def mover(values: int) -> tuple[Callable[[int], None], Callable[[int], None]]:
        moved = Runtime(["cpu:0", "cpu:1"])
        data = np.random.default_rng(0).standard_normal(values).astype(np.float32)
        q = [moved.quantize(moved.tensor(data, "cpu:0"), "q8s")]
        stored = moved.handle("cpu:0", q[0].id).tensor  # what the move carries
        parts = [np.asarray(stored.values), np.asarray(stored.scales)]

        def move(n: int) -> None:
            for i in range(n):
                q[0] = moved.to_device(q[0], "cpu:1" if i % 2 == 0 else "cpu:0")

        def copy(n: int) -> None:
            for _ in range(n):
                for part in parts:
                    np.array(part, copy=True)
        return move, copy

    small, _ = mover(1024)
    large, raw = mover(1 << 20)
    gc.collect()
    gc.disable()
    flow(1000), small(100), large(10), raw(10)  # warm
    iteration, dict_pair = best(flow, 2000), best(bare, 2000)
    big = best(large, 40)
    return dict(zip(FIGURES, (iteration, iteration / dict_pair, best(small, 400), big,
                              big / best(raw, 40)), strict=True))


def run_in(checkout: Path | None) -> dict[str, float]:
    """`measure()` in a fresh process importing `checkout` as routerlab (None: this one)."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as parent:
        if checkout is not None:
            (Path(parent) / "routerlab").symlink_to(checkout.resolve())
            env["PYTHONPATH"] = parent
        out = subprocess.run([sys.executable, str(HERE), "--measure"], env=env, cwd=parent,
                             capture_output=True, text=True, timeout=600, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", nargs="?", type=Path, help="the other checkout")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure()))
        return
    if args.other is None or not (args.other / "core" / "runtime.py").is_file():
        parser.error("give another RouterLab checkout (a folder with core/runtime.py)")
    this: list[dict[str, Any]] = []
    other: list[dict[str, Any]] = []
    for round_ in range(args.rounds):
        order = [(this, None), (other, args.other)]
        for results, checkout in order if round_ % 2 == 0 else order[::-1]:
            results.append(run_in(checkout))
    print(f"{'':22s} {'this':>10s} {'other':>10s} {'this/other':>11s}  (medians of "
          f"{args.rounds} rounds, thread CPU time)")
    for figure in FIGURES:
        mine = statistics.median(r[figure] for r in this)
        theirs = statistics.median(r[figure] for r in other)
        ratio = statistics.median(a[figure] / b[figure] for a, b in zip(this, other, strict=True))
        print(f"{figure:22s} {mine:10.2f} {theirs:10.2f} {ratio:11.3f}")


if __name__ == "__main__":
    main()
