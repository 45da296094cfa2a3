"""Int8 per-tensor quantize/dequantize throughput: RouterLab vs PyTorch vs a raw copy.

    .venv/bin/python benchmarks/quantize.py [--mi 64] [--repeat 7]

Quantizes 64 Mi float32 values (256 MiB) with a given scale (Q8S, static, as
`torch.quantize_per_tensor` takes one), then dequantizes them, for each RouterLab profile; the
same with PyTorch on the CPU (`torch.quantize_per_tensor(x, scale, 0, torch.qint8)` /
`.dequantize()`); and copies the same 256 MiB as the memory-bandwidth yardstick. The contenders
run in interleaved rounds and each figure is its best round; every run allocates its output, as
both libraries do. Throughput is float32 input bytes per second.
Ratios above 1.0 mean RouterLab is faster. PyTorch is optional: without it the torch column is
skipped with the reason printed. On a terminal a transient progress bar on stderr counts the
timed calls (advanced between them, never inside one; benchmarks/_progress.py).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from _progress import steps

from routerlab.core.profiles import Profile
from routerlab.core.quant import quantize

SCHEME = "q8s:store=native"


def timed(run: Callable[[], Any]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def gbps(nbytes: int, seconds: float) -> str:
    return f"{nbytes / seconds / 1e9:6.2f} GB/s"


def torch_runs(x: np.ndarray, scale: float) -> dict[str, Callable[[], Any]] | str:
    """PyTorch's quantize/dequantize on the CPU, or why they cannot be measured."""
    try:
        import torch
    except ImportError as error:
        return f"PyTorch is not installed ({error.name}); pip install torch to compare"
    warnings.filterwarnings(
        "ignore", message=".*quantize_per_tensor.*deprecated", category=UserWarning
    )
    tensor = torch.from_numpy(x)
    q = torch.quantize_per_tensor(tensor, scale, 0, torch.qint8)
    return {
        "torch quantize": lambda: torch.quantize_per_tensor(tensor, scale, 0, torch.qint8),
        "torch dequantize": q.dequantize,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mi", type=int, default=64, help="Mi float32 values (default 64 = 256 MiB)"
    )
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    n = args.mi * (1 << 20)
    x = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
    scale = float(np.float32(np.abs(x).max()) / np.float32(127))
    nbytes = x.nbytes
    runs: dict[str, Callable[[], Any]] = {"raw copy": x.copy}
    reference = torch_runs(x, scale)
    if not isinstance(reference, str):
        runs.update(reference)
    for profile in Profile:
        tensor = quantize(x, SCHEME, [scale], profile=profile)
        runs[f"{profile.value} quantize"] = partial(quantize, x, SCHEME, [scale], profile=profile)
        runs[f"{profile.value} dequantize"] = partial(tensor.dequantize, profile)

    # Interleaved rounds, best of each: a shared machine's noise hits every contender alike.
    best = dict.fromkeys(runs, float("inf"))
    rounds = args.repeat + 1
    labels = [f"round {r + 1}/{rounds}: {name}" for r in range(rounds) for name in runs]
    with steps(labels) as step:
        for _ in range(rounds):
            for name, run in runs.items():
                best[name] = min(best[name], timed(run))
                step()  # between timed calls, never inside one

    print(
        f"{n:,} float32 values ({nbytes / 2**20:.0f} MiB), {SCHEME} per tensor, scale "
        f"{scale:.6g}, {os.cpu_count()} CPUs, best of {args.repeat + 1} interleaved rounds"
    )
    print(f"raw copy of the same bytes    {gbps(nbytes, best['raw copy'])}")
    if isinstance(reference, str):
        print(f"torch: skipped: {reference}")
    else:
        print(f"torch quantize_per_tensor     {gbps(nbytes, best['torch quantize'])}")
        print(f"torch dequantize              {gbps(nbytes, best['torch dequantize'])}")
    print(
        f"{'profile':8} {'quantize':>12} {'dequantize':>12} {'q/torch':>8} {'dq/torch':>8} "
        f"{'q/copy':>7} {'dq/copy':>7}"
    )
    for profile in Profile:
        quant, dequant = best[f"{profile.value} quantize"], best[f"{profile.value} dequantize"]
        if isinstance(reference, str):
            versus = f"{'-':>8} {'-':>8}"
        else:
            versus = (
                f"{best['torch quantize'] / quant:8.2f} {best['torch dequantize'] / dequant:8.2f}"
            )
        print(
            f"{profile.value:8} {gbps(nbytes, quant):>12} {gbps(nbytes, dequant):>12} {versus} "
            f"{best['raw copy'] / quant:7.2f} {best['raw copy'] / dequant:7.2f}"
        )


if __name__ == "__main__":
    main()
