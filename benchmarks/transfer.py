"""Moving a quantized tensor cpu:0 -> cpu:1: every policy against a raw copy of the same bytes.

    .venv/bin/python benchmarks/transfer.py [--mi 64] [--repeat 5]

Two tensors of 64 Mi values: int8 (Q8S, Native, Flex devices cpu:0 -> cpu:1) and int4 packed
into u32 words (Q4S, PackedU32, CubeCL devices cpu:0@cubecl -> cpu:1@cubecl). For each, side by
side in one run: a raw copy of the stored bytes (`numpy.array(values, copy=True)`, the limit a
move cannot beat), then `Runtime.to_device` under `native`, `dequantize` and `requantize`. Each
figure is the best of `--repeat` rounds, interleaved; every contender allocates its output.

Bytes moved are the target backend's own copy counter; peak memory is measured with
`tracemalloc` (numpy reports its buffers to it) during the move, plus the source tensor that is
resident throughout. Targets, checked and printed:

- native <= 1.25 x the raw copy's time;   - native >= 3 x faster than dequantize;
- bytes moved <= 0.26 x the f32 payload;  - peak memory <= 2.1 x the bytes moved.

The exit status is 1 when a target is missed. On a terminal a transient progress bar on stderr
counts each case's copies and moves (advanced between them, never inside a timed call;
benchmarks/_progress.py).
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from dataclasses import dataclass

import numpy as np
from _progress import steps

from routerlab.core import Runtime
from routerlab.teaching.measure import held

CASES = [("int8", "q8s:store=native", "cpu:0", "cpu:1"),
         ("int4 packed", "q4s:store=packed-u32", "cpu:0@cubecl", "cpu:1@cubecl")]
POLICIES = ("native", "dequantize", "requantize")


@dataclass
class Result:
    seconds: float = float("inf")
    bytes_moved: int = 0
    peak: int = 0


def build(scheme: str, source: str, target: str, count: int) -> tuple[Runtime, object]:
    rt = Runtime([source, target])
    x = np.random.default_rng(0).standard_normal(count, dtype=np.float32).reshape(-1, 1024)
    return rt, rt.quantize(rt.tensor(x, source, "f32"), scheme)


def move(rt: Runtime, tensor: object, policy: str, memory: bool) -> tuple[object, float, int, int]:
    """One hop to the other device: (moved, seconds, bytes moved, traced peak)."""
    there = rt.devices[1] if tensor.device == rt.devices[0] else rt.devices[0]
    backend = rt.session(there).interpreter.backend
    arrived = backend.bytes_copied
    gc.collect()
    if memory:
        tracemalloc.start()
        tracemalloc.reset_peak()
    start = time.perf_counter()
    moved = rt.to_device(tensor, there, policy=policy)
    seconds = time.perf_counter() - start
    peak = 0
    if memory:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return moved, seconds, backend.bytes_copied - arrived, peak


def raw_copy(values: np.ndarray) -> float:
    gc.collect()
    start = time.perf_counter()
    copy = np.array(values, copy=True)
    seconds = time.perf_counter() - start
    del copy
    return seconds


def run_case(name: str, scheme: str, source: str, target: str, count: int,
             repeat: int) -> bool:
    rt, tensor = build(scheme, source, target, count)
    stored = held(rt, tensor).tensor
    values = np.asarray(stored.values)
    f32_bytes = count * 4
    results = {p: Result() for p in POLICIES}
    raw = float("inf")
    labels = [f"{name}: raw copy {r + 1}/{repeat}" for r in range(repeat)] + [
        f"{name}: {policy} " + ("memory" if r == repeat else f"round {r + 1}/{repeat}")
        for r in range(repeat + 1) for policy in POLICIES]
    with steps(labels) as step:
        for _ in range(repeat):
            raw = min(raw, raw_copy(values))
            step()  # between timed calls, never inside one
        for round_ in range(repeat + 1):
            for policy in POLICIES:
                memory = round_ == repeat  # the last round measures memory, untimed
                tensor, seconds, moved, peak = move(rt, tensor, policy, memory)
                if memory:
                    results[policy].peak = peak
                else:
                    results[policy].seconds = min(results[policy].seconds, seconds)
                    results[policy].bytes_moved = moved
                step()
    print(f"\n{name}: {count / 2**20:.0f} Mi values, {scheme}, {source} -> {target}; stored "
          f"{stored.nbytes / 2**20:.1f} MiB, f32 payload {f32_bytes / 2**20:.0f} MiB")
    print(f"  {'contender':<12} {'time':>10} {'× raw':>7} {'bytes moved':>14} {'× f32':>7} "
          f"{'peak memory':>13} {'× moved':>8}")
    print(f"  {'raw copy':<12} {raw * 1e3:8.1f}ms {1.0:7.2f} {values.nbytes:14,d} "
          f"{values.nbytes / f32_bytes:7.3f}")
    for policy, r in results.items():
        resident = r.peak + stored.nbytes
        print(f"  {policy:<12} {r.seconds * 1e3:8.1f}ms {r.seconds / raw:7.2f} "
              f"{r.bytes_moved:14,d} {r.bytes_moved / f32_bytes:7.3f} "
              f"{resident / 2**20:10.1f}MiB {resident / r.bytes_moved:8.2f}")
    native, dequantize = results["native"], results["dequantize"]
    checks = [
        ("native <= 1.25 x raw copy", native.seconds / raw, 1.25, "<="),
        ("native >= 3 x faster than dequantize", dequantize.seconds / native.seconds, 3.0, ">="),
        ("bytes moved <= 0.26 x f32 payload", native.bytes_moved / f32_bytes, 0.26, "<="),
        ("peak memory <= 2.1 x bytes moved", (native.peak + stored.nbytes) / native.bytes_moved,
         2.1, "<="),
    ]
    ok = True
    for label, value, limit, how in checks:
        met = value <= limit if how == "<=" else value >= limit
        ok &= met
        print(f"  {'met   ' if met else 'MISSED'} {label}: {value:.3f}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mi", type=int, default=64, help="Mi values per tensor (default 64)")
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds (default 5)")
    args = parser.parse_args()
    ok = all([run_case(name, scheme, source, target, args.mi * 2**20, args.repeat)
              for name, scheme, source, target in CASES])
    print("\nall targets met" if ok else "\nsome targets MISSED")
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
