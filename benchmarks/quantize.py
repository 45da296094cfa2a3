"""Q8S quantize against PyTorch's `quantize_per_tensor`, and the absence of a size cliff.

    .venv/bin/python benchmarks/quantize.py [--mi 16] [--rounds 9] [--json OUT]

1. 16 Mi f32 values quantized per tensor with a given scale (static Q8S, as
   `torch.quantize_per_tensor(x, scale, 0, torch.qint8)` takes one) under each RouterLab profile,
   paired with torch round by round (benchmarks/_paired.py). The speed ratio is torch's time over
   RouterLab's: above 1.0 RouterLab is faster. PyTorch is optional, never a dependency: without it
   this part is skipped with the reason printed (the CPU build: `.venv/bin/pip install torch
   --index-url https://download.pytorch.org/whl/cpu`).
   PyTorch's OpenMP workers are made to sleep between calls (`OMP_WAIT_POLICY=PASSIVE`, unless
   the environment already sets a policy): by default they spin for a while after each call, and
   in a paired round they took the cores from RouterLab's threads running next. Measured here on
   2 cores: RouterLab's CPU time rose from 7 to 13-17 ms per call, all of it torch's spinning,
   and the median speed ratio swung between 0.4x and 1.1x from one torch build to another.
   PyTorch's own median is not slowed by it (7.5 ms either way on this machine).
   Beside it, with no goal, torch and each profile against the floor of any such kernel on this
   machine: a loop that only converts each f32 to int8, split across the same threads as
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

from routerlab.core.profiles import Profile
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
    reference = torch_quantize(x, scale)
    if isinstance(reference, str):
        results["torch"] = reference
        print(f"torch: skipped: {reference}")
    else:
        convert = convert_only(x)
        floor = paired(convert, reference, rounds=rounds)
        at_floor = 1 / floor.median
        results["floor vs torch"] = floor.to_dict()
        print(f"convert-only floor {mi} Mi: torch takes {at_floor:.2f}x the time of a loop that "
              f"only converts f32 to int8 (median; CPU ratio {floor.cpu_median:.2f})")
        for profile in Profile:
            mine = lambda p=profile: quantize(x, SCHEME, [scale], profile=p)  # noqa: E731
            pair = paired(mine, reference, rounds=rounds)
            own = paired(mine, convert, rounds=rounds).median
            speed = 1 / pair.median
            results[f"vs torch, {profile.value}"] = {"speed_ratio_median": speed,
                                                     "speed_ratio_best": 1 / pair.min,
                                                     "vs_floor_median": own, **pair.to_dict()}
            print(f"{profile.value:8} quantize {mi} Mi: {speed:.2f}x torch's speed (median; "
                  f"best {1 / pair.min:.2f}x; CPU ratio {pair.cpu_median:.2f}), {own:.2f}x the "
                  f"convert-only loop's time, {path}")
            goals.append(Goal(f"quantize q8s ({profile.value}) vs torch, {mi} Mi", speed, 1.0,
                              ">=", note=f"(best round {1 / pair.min:.2f}x; against a "
                                         f"convert-only loop, torch's time is {at_floor:.2f}x, "
                                         f"RouterLab's {own:.2f}x)"))
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
