"""Whole-process peak memory against the f32 payload, each in a fresh process.

    .venv/bin/python benchmarks/memory.py [--mi 64] [--side 16000] [--json OUT]

The figure is the peak resident set of a fresh Python process (`VmHWM`, which `exec` resets;
`ru_maxrss` would start at the resident set of the process that forked it, the benchmark runner
itself) divided by the bytes of the tensor's f32 values. The `transfer` command runs under a
small wrapper process, whose children's `ru_maxrss` is the command's own peak. Everything
counts: the interpreter, numpy, numba when it is loaded, the input, every copy and temporary. A
fresh process per case, so no case inherits another's peak. Goals (each can fail; exit status 1
when one does):

1. quantize 64 Mi values (Q8S) and move them natively `cpu:0 -> cpu:1`, the input a writable
   array the caller drops after the upload: <= 2.2x. Also measured, not judged: the same with the
   input handed over read-only (`TensorData.from_array` keeps it instead of copying), and with
   the caller keeping a writable input alive to the end.
2. `routerlab transfer --random 16000,16000 --scheme q8s --from cpu:0 --to cpu:1 --json` (1 GB of
   f32): <= 2.2x.

A throwaway process runs first, so that numba's compiled loops are in its disk cache: compiling
them (once per machine) takes some 350 MB while LLVM runs, which is not the steady state.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

from _paired import Goal, finish

CHILD = """
import resource, sys
import numpy as np
from routerlab.core import Runtime
mode, count = sys.argv[1], int(sys.argv[2])
rt = Runtime(["cpu:0", "cpu:1"])
x = np.random.default_rng(0).standard_normal(count, dtype=np.float32)
if mode == "handed-over":
    x.flags.writeable = False
x = x.reshape(-1, 1024)
t = rt.tensor(x, "cpu:0", "f32")
if mode != "kept":
    del x
q = rt.quantize(t, "q8s")
moved = rt.to_device(q, "cpu:1")
try:  # this process's own peak: ru_maxrss would start at the RSS of the process that forked it
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak * 1024)
"""
WRAPPER = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
"""


def quantize_and_move(mode: str, count: int) -> float:
    out = subprocess.run([sys.executable, "-c", CHILD, mode, str(count)], capture_output=True,
                         text=True, check=True)
    return int(out.stdout.split()[-1]) / (count * 4)


def transfer_cli(side: int) -> tuple[float, int]:
    routerlab = Path(sys.executable).with_name("routerlab")
    out = subprocess.run([sys.executable, "-c", WRAPPER, str(routerlab), "transfer", "--random",
                          f"{side},{side}", "--scheme", "q8s", "--from", "cpu:0", "--to",
                          "cpu:1", "--policy", "native", "--json"],
                         capture_output=True, text=True, check=True)
    code, peak = out.stdout.split()
    return int(peak) / (side * side * 4), int(code)


def run(mi: int, side: int) -> dict[str, Any]:
    count = mi << 20
    results: dict[str, Any] = {}
    # A throwaway process first: the very first quantize on a machine compiles numba's loops
    # (LLVM takes some 350 MB while it does) and caches them on disk; every later run loads them.
    quantize_and_move("dropped", 1 << 20)
    for mode in ("dropped", "handed-over", "kept"):
        results[f"quantize+move {mi} Mi, input {mode}"] = ratio = quantize_and_move(mode, count)
        print(f"quantize + native move, {mi} Mi values, input {mode}: peak RSS {ratio:.2f}x "
              "the f32 payload")
    ratio, code = transfer_cli(side)
    results[f"routerlab transfer {side}x{side}"] = ratio
    print(f"routerlab transfer --random {side},{side}: peak RSS {ratio:.2f}x the f32 payload "
          f"(exit {code})")
    goals = [Goal(f"peak RSS / f32 payload, {mi} Mi quantize + native move",
                  results[f"quantize+move {mi} Mi, input dropped"], 2.2, "<=",
                  note=f"(input handed over: "
                       f"{results[f'quantize+move {mi} Mi, input handed-over']:.2f}x; input kept "
                       f"alive: {results[f'quantize+move {mi} Mi, input kept']:.2f}x)"),
             Goal(f"peak RSS / f32 payload, routerlab transfer {side}x{side}", ratio, 2.2, "<=",
                  note="" if code == 0 else f"(the command exited {code})")]
    results["goals"] = [g.to_dict() for g in goals]
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mi", type=int, default=64)
    parser.add_argument("--side", type=int, default=16000)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    results = run(args.mi, args.side)
    finish(results, args.json)


if __name__ == "__main__":
    main()
