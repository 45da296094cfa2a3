"""Q8S quantize against PyTorch's `quantize_per_tensor`, and the absence of a size cliff.

    .venv/bin/python benchmarks/quantize.py [--mi 16] [--rounds 9] [--json OUT]

1. 16 Mi f32 values quantized per tensor with a given scale (static Q8S, as
   `torch.quantize_per_tensor(x, scale, 0, torch.qint8)` takes one) under each RouterLab profile,
   paired round by round (benchmarks/_paired.py) with the floor of any such kernel on this
   machine (below). Goals: Flex at most 1.2x the floor's time, the dividing profiles (NdArray,
   CubeCL) at most 1.45x. torch is a column for reference (its time over RouterLab's: above 1.0
   RouterLab is faster), no longer a goal. PyTorch is optional, never a dependency: without it
   that column is skipped with the reason printed (the CPU build: `.venv/bin/pip install torch
   --index-url https://download.pytorch.org/whl/cpu`).
   PyTorch's OpenMP workers are made to sleep between calls (`OMP_WAIT_POLICY=PASSIVE`, unless
   the environment already sets a policy): by default they spin for a while after each call, and
   in a paired round they took the cores from RouterLab's threads running next. Measured here on
   2 cores: RouterLab's CPU time rose from 7 to 13-17 ms per call, all of it torch's spinning,
   and the median speed ratio swung between 0.4x and 1.1x from one torch build to another.
   PyTorch's own median is not slowed by it (7.5 ms either way on this machine).
   The floor: a loop that only converts each f32 to int8, split across the same threads as
   RouterLab's quantize (numba's compiled loop, or numpy's one-pass cast without numba). A ratio
   near 1.0 says that side runs at the speed of memory, and no quantizer that reads f32 and
   writes int8 can beat it by more than what is left.
2. The time per value at 512 Ki values against 525,000 (just above the old 512 Ki chunk size, where
   a call used to switch from fresh scratch buffers to threads and ran 4x faster): paired, the
   ratio of the times per value must stay within 1.25.

Both use whatever quantize path this machine has (numba's fused loop when installed, numpy's
chunks otherwise), and say which.
"""

from __future__ import annotations

import argparse
import os
import warnings
from typing import Any

import numpy as np
from _paired import Goal, finish, paired

from routerlab.core.base.profiles import Profile
from routerlab.core.quant import quantize
from routerlab.core.quant.kernels import fused_module, split

SCHEME = "q8s:store=native"


def torch_quantize(x: np.ndarray, scale: float) -> Any:
    """`torch.quantize_per_tensor` on `x`, or the reason it cannot run here."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # read once, when torch loads libgomp
    try:
        import torch
    except ImportError as error:
        return f"PyTorch is not installed ({error.name}); pip install torch to compare"
    warnings.filterwarnings("ignore", message=".*quantize_per_tensor.*", category=UserWarning)
    tensor = torch.from_numpy(x)
    return lambda: torch.quantize_per_tensor(tensor, scale, 0, torch.qint8)


FLOOR_GOAL = {Profile.FLEX: 1.2}
"""Flex multiplies by the scale's reciprocal (`x * (1 / s)`): at most 1.2x the loop that only
converts f32 to int8 (issue 22, against the floor issue 12 measured)."""
DIVIDING_GOAL = 1.45
"""NdArray and CubeCL divide (`x / s`), as Burn does on them, and a divide unit takes five cycles
per eight lanes: at most 1.45x that loop. torch runs at about that loop's speed (0.93-1.12x), so
"at least torch's speed" is withdrawn for these; torch stays a column for reference."""


def convert_only(x: np.ndarray) -> Any:
    """`int8(x)` in one pass over the same threads as `quantize`: the floor of a quantizer."""
    fused = fused_module()
    if fused is None:
        def convert(source: np.ndarray, out: np.ndarray) -> None:
            np.copyto(out, source, casting="unsafe")
    else:
        import numba

        convert = numba.njit(nogil=True)(_convert_loop)

    def run() -> np.ndarray:
        out = np.empty(x.size, np.int8)
        split(x.size, lambda b, e: convert(x[b:e], out[b:e]))
        return out

    run()  # compiles the loop once, before anything is timed
    return run


def _convert_loop(source: np.ndarray, out: np.ndarray) -> None:
    for i in range(source.size):
        out[i] = np.int8(np.int32(source[i]))


def run(mi: int, rounds: int) -> dict[str, Any]:
    x = np.random.default_rng(0).standard_normal(mi << 20, dtype=np.float32)
    scale = float(np.float32(np.abs(x).max()) / np.float32(127))
    path = "numba (fused)" if fused_module() is not None else "numpy (chunked)"
    results: dict[str, Any] = {"values": x.size, "path": path, "rounds": rounds}
    goals = []
    convert = convert_only(x)
    reference = torch_quantize(x, scale)
    if isinstance(reference, str):
        results["torch"] = reference
        print(f"torch: skipped (a column for reference only): {reference}")
    else:
        floor = paired(convert, reference, rounds=rounds)
        results["floor vs torch"] = floor.to_dict()
        print(f"convert-only floor {mi} Mi: torch takes {1 / floor.median:.2f}x the time of a "
              f"loop that only converts f32 to int8 (median; CPU ratio {floor.cpu_median:.2f})")
    for profile in Profile:
        mine = lambda p=profile: quantize(x, SCHEME, [scale], profile=p)  # noqa: E731
        own = paired(mine, convert, rounds=rounds)
        row: dict[str, Any] = {"vs_floor_median": own.median, "floor": own.to_dict()}
        against = ""
        if not isinstance(reference, str):
            pair = paired(mine, reference, rounds=rounds)
            row |= {"speed_ratio_median": 1 / pair.median, "speed_ratio_best": 1 / pair.min,
                    **pair.to_dict()}
            against = f"; {1 / pair.median:.2f}x torch's speed, for reference"
        results[f"quantize, {profile.value}"] = row
        print(f"{profile.value:8} quantize {mi} Mi: {own.median:.2f}x the convert-only loop's "
              f"time (median; min {own.min:.2f}){against}, {path}")
        limit = FLOOR_GOAL.get(profile, DIVIDING_GOAL)
        goals.append(Goal(f"quantize q8s ({profile.value}) vs the convert-only loop, {mi} Mi",
                          own.median, limit, "<=", note=f"(min {own.min:.2f}{against})"))
    small, big = x[: 512 << 10], x[:525_000]
    pair = paired(lambda: quantize(small, SCHEME, [scale]), lambda: quantize(big, SCHEME, [scale]),
                  rounds=max(rounds, 15))
    per_value = pair.median * big.size / small.size
    results["size cliff"] = {"per_value_ratio_median": per_value, **pair.to_dict()}
    print(f"time per value, 512 Ki vs 525,000: {per_value:.2f} (median of paired rounds)")
    goals.append(Goal("quantize time per value, 512 Ki vs 525,000 (no size cliff)", per_value,
                      1.25, "<="))
    results["goals"] = [g.to_dict() for g in goals]
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mi", type=int, default=16, help="Mi f32 values (default 16)")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    results = run(args.mi, args.rounds)
    finish(results, args.json)


if __name__ == "__main__":
    main()
