"""How fast `routerlab` starts, against bare Typer apps on the same interpreter.

    .venv/bin/python benchmarks/cli_start.py [--rounds 15] [--json OUT]

Two pairs of fresh processes, interleaved in rotated order round by round (benchmarks/_paired.py):

1. `routerlab --help` against a bare two-command Typer app's `--help`. Goal <= 1.15x.
2. `routerlab quantize --values '[1,2]' --scheme q8s --json` against the same bare app that also
   imports numpy, running one of its commands. Goal <= 1.15x.

Each side is the wall time of a whole process (`python -c ...` with the same `sys.executable`),
start-up included; CPU time is that of the child (`RUSAGE_CHILDREN`).

Both sides run from bytecode. Typer's modules were compiled when pip installed them, and pip
compiles RouterLab's too on a regular install; an editable install compiles on first import and
caches in `__pycache__`, unless `PYTHONDONTWRITEBYTECODE` is set (as on this machine), when
every start compiled RouterLab's CLI again (some 20 ms, a sixth of `--help`). So the run first
compiles RouterLab's sources once, as an install would (`compile_routerlab`).
"""

from __future__ import annotations

import argparse
import compileall
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _paired import Goal, Side, finish

BARE = """
import sys
import typer
{extra}
app = typer.Typer()
@app.command()
def first(x: int = 0) -> None:
    pass
@app.command()
def second(y: int = 0) -> None:
    pass
app()
"""
ROUTERLAB = "from routerlab.cli.app import main; main()"


def compile_routerlab() -> None:
    """Write the bytecode of every RouterLab package folder (what `pip install` does), so the
    processes timed load it instead of compiling sources that this machine never caches."""
    import routerlab
    import routerlab.cli
    import routerlab.core

    for package in (routerlab, routerlab.cli, routerlab.core):
        compileall.compile_dir(Path(package.__file__).parent, quiet=1)


def _process(code: str, args: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, *args], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def pair(contender: tuple[str, list[str]], baseline: tuple[str, list[str]],
         rounds: int) -> dict[str, Any]:
    """Per-round wall ratios of two commands, alternating which runs first."""
    mine, theirs = Side(), Side()
    _process(*contender), _process(*baseline)  # warm the file cache
    for r in range(rounds):
        for which in ((0, 1) if r % 2 == 0 else (1, 0)):
            wall, cpu = _process(*(contender if which == 0 else baseline))
            side = mine if which == 0 else theirs
            side.wall.append(wall)
            side.cpu.append(cpu)
            side.free.append(0.0)
    ratios = sorted(a / b for a, b in zip(mine.wall, theirs.wall, strict=True))
    cpu = sorted(a / b for a, b in zip(mine.cpu, theirs.cpu, strict=True))
    return {"rounds": rounds, "ratio_min": ratios[0], "ratio_median": ratios[len(ratios) // 2],
            "cpu_ratio_median": cpu[len(cpu) // 2], "contender": mine.to_dict(),
            "baseline": theirs.to_dict()}


def run(rounds: int) -> dict[str, Any]:
    compile_routerlab()
    helps = pair((ROUTERLAB, ["--help"]), (BARE.format(extra=""), ["--help"]), rounds)
    quant = pair((ROUTERLAB, ["quantize", "--values", "[1,2]", "--scheme", "q8s", "--json"]),
                 (BARE.format(extra="import numpy"), ["first"]), rounds)
    for name, result in (("routerlab --help vs bare Typer --help", helps),
                         ("routerlab quantize --json vs bare Typer + numpy", quant)):
        print(f"{name}: {result['ratio_median']:.2f}x (median; min {result['ratio_min']:.2f}x; "
              f"CPU {result['cpu_ratio_median']:.2f}x; "
              f"{result['contender']['wall_median_s'] * 1e3:.0f} ms vs "
              f"{result['baseline']['wall_median_s'] * 1e3:.0f} ms)")
    goals = [Goal("routerlab --help vs a bare two-command Typer app", helps["ratio_median"], 1.15,
                  "<=", note=f"(min {helps['ratio_min']:.2f})"),
             Goal("routerlab quantize --values '[1,2]' --scheme q8s --json vs bare Typer + numpy",
                  quant["ratio_median"], 1.15, "<=", note=f"(min {quant['ratio_min']:.2f})")]
    return {"help": helps, "quantize_json": quant, "goals": [g.to_dict() for g in goals]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    results = run(args.rounds)
    finish(results, args.json)


if __name__ == "__main__":
    main()
