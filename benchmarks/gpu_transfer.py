"""Transfers on a real GPU through CuPy: H2D, D2H and D2D for every dtype and every policy.

    .venv/bin/python benchmarks/gpu_transfer.py [--mi 64] [--repeat 5]

Needs the `gpu` extra (`pip install 'routerlab[gpu]'`) and a usable CUDA GPU; without one it
prints why (RouterLab's `gpu_status()`) and exits with status 2. A peer hosts one backend, so the
GPUs sit on a peer of their own (`gpu/cuda:N`). Paths: cpu:0 -> gpu/cuda:0 (H2D, Burn's Dispatch
between the numpy and CuPy backends: `into_data` to the client, `from_data` on the GPU),
gpu/cuda:0 -> cpu:0 (D2H, Dispatch back), and gpu/cuda:0 -> gpu/cuda:1 (D2D, a same-peer move)
when two GPUs are present. Plain tensors (f32, i64, u8, bool) and quantized ones
(Q8S and Q4S, CubeCL's PackedU32 store on the GPU) under native, dequantize and requantize. Every
move is checked (values read back equal, quantized values bit-identical for native) and timed with
the GPU synchronized; each figure is the best of `--repeat` moves.

Then the goal: a native Q8S move (H2D, and D2D with two GPUs) paired round by round with a raw
CuPy copy of the same values and scales (benchmarks/_paired.py), within 1.2x (median). Without
a usable GPU, `paired_goals()` returns the reason and run_all.py prints it as a skip.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from _paired import Goal, goal_line, paired

from routerlab.core import Runtime
from routerlab.core.base.gpu import gpu_status
from routerlab.core.quant.arrays import to_host
from routerlab.teaching.measure import held

PLAIN = ("f32", "i64", "u8", "bool")
QUANTIZED = ("q8s", "q4s")
POLICIES = ("native", "dequantize", "requantize")
PATHS = (("H2D", "cpu:0", "gpu/cuda:0", "dispatch"), ("D2H", "gpu/cuda:0", "cpu:0", "dispatch"),
         ("D2D", "gpu/cuda:0", "gpu/cuda:1", None))
"""Name, source, target and forced path: the GPUs on a peer of their own (a peer hosts one
backend), Dispatch between the numpy and CuPy backends, the local path between two GPUs."""


def synchronize() -> None:
    import cupy

    for index in range(cupy.cuda.runtime.getDeviceCount()):
        with cupy.cuda.Device(index):
            cupy.cuda.runtime.deviceSynchronize()


def timed_move(rt: Runtime, make: Any, target: str, path: str | None, policy: str | None,
               repeat: int) -> tuple[float, Any, Any]:
    """Best time over `repeat` moves of a fresh tensor; returns (seconds, source, moved)."""
    best, source, moved = float("inf"), None, None
    for _ in range(repeat):
        if moved is not None:
            rt.drop(moved)
        tensor = make()
        source = held(rt, tensor).tensor if policy is not None else rt.read(tensor)
        synchronize()
        start = time.perf_counter()
        moved = rt.to_device(tensor, target, path, policy=policy)
        synchronize()
        best = min(best, time.perf_counter() - start)
    return best, source, moved


def paired_goals(mi: int = 16, rounds: int = 7) -> list[Goal] | str:
    """Native Q8S move vs a raw CuPy copy of its bytes, per GPU path; or why not measured."""
    status = gpu_status()
    if not status.usable:
        return f"no usable GPU: {status.reason}"
    import cupy

    paths = [p for p in PATHS if p[0] != "D2H" and (p[0] != "D2D" or status.device_count > 1)]
    return [_paired_path(cupy, name, source, target, path, mi, rounds)
            for name, source, target, path in paths]


def _paired_path(cupy: Any, name: str, source: str, target: str, path: str | None, mi: int,
                 rounds: int) -> Goal:
    rt = Runtime([source, target])
    x = np.random.default_rng(0).standard_normal(mi << 20, dtype=np.float32)
    tensor = rt.quantize(rt.tensor(x.reshape(-1, 1024), source, "f32"), "q8s:store=native")
    stored = held(rt, tensor).tensor
    state = {"t": tensor}
    device = int(target.split(":")[1])

    def move() -> Any:
        kept = held(rt, state["t"])
        state["t"] = rt.to_device(state["t"], target, path)
        synchronize()
        return kept

    def raw_copy() -> Any:
        with cupy.cuda.Device(device):
            copied = (cupy.array(stored.values, copy=True), np.array(stored.scales, copy=True))
        synchronize()
        return copied

    def back() -> None:
        state["t"] = rt.to_device(state["t"], source, path)
        synchronize()

    result = paired(move, raw_copy, rounds=rounds, between=back)
    return Goal(f"CuPy native q8s move vs raw CuPy copy, {name}, {mi} Mi", result.median, 1.2,
                "<=", note=f"(min {result.min:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mi", type=int, default=64, help="Mi values per tensor (default 64)")
    parser.add_argument("--repeat", type=int, default=5, help="timed moves (default 5)")
    args = parser.parse_args()
    status = gpu_status()
    if not status.usable:
        print(f"no usable GPU, nothing to measure: {status.reason}")
        raise SystemExit(2)
    print(f"GPU: {status.device_name} × {status.device_count} (CuPy {status.cupy_version})")
    count = args.mi * 2**20
    devices = ["cpu:0", "gpu/cuda:0"] + (["gpu/cuda:1"] if status.device_count > 1 else [])
    paths = [p for p in PATHS if p[0] != "D2D" or status.device_count > 1]
    if status.device_count < 2:
        print("D2D skipped: one GPU (cuda:1 does not exist)")
    rt = Runtime(devices)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(count, dtype=np.float32).reshape(-1, 1024)
    plain = {"f32": x, "i64": (x * 100).astype(np.int64), "u8": (np.abs(x) * 50).astype(np.uint8),
             "bool": x > 0}
    failures = 0
    print(f"{'path':<5} {'dtype':<6} {'policy':<11} {'time':>10} {'GB/s':>8}  check")
    for name, source, target, path in paths:
        for dtype in PLAIN:
            seconds, before, moved = timed_move(
                rt, lambda d=dtype, s=source: rt.tensor(plain[d], s, d), target, path, None,
                args.repeat)
            same = np.array_equal(rt.read(moved), before)
            failures += not same
            nbytes = plain[dtype].nbytes
            print(f"{name:<5} {dtype:<6} {'-':<11} {seconds * 1e3:8.2f}ms "
                  f"{nbytes / seconds / 1e9:8.2f}  {'ok' if same else 'VALUES DIFFER'}")
        for scheme in QUANTIZED:
            for policy in POLICIES:
                seconds, before, moved = timed_move(
                    rt, lambda s=source, q=scheme: rt.quantize(rt.tensor(x, s, "f32"), q),
                    target, path, policy, args.repeat)
                after = held(rt, moved).tensor
                exact = np.array_equal(to_host(after.q()), to_host(before.q())) and (
                    policy != "native" or after.scales.tobytes() == before.scales.tobytes())
                check = "ok" if exact or policy == "requantize" else "Q CHANGED"
                failures += check != "ok"
                print(f"{name:<5} {scheme:<6} {policy:<11} {seconds * 1e3:8.2f}ms "
                      f"{after.nbytes / seconds / 1e9:8.2f}  {check} ({after.scheme})")
    goals = paired_goals()
    for goal in goals if not isinstance(goals, str) else []:
        print(goal_line(goal.to_dict()))
        failures += not goal.met
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
