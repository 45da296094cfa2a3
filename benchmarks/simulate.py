"""What `routerlab simulate` costs a learner drawing a long run, against the same run as JSON.

    .venv/bin/python benchmarks/simulate.py [--steps 10000] [--rounds 3] [--json OUT]

A scenario of `--steps` steps (a tensor, then clones of it each dropped again) runs in fresh
processes, interleaved round by round in rotated order (benchmarks/_paired.py, as cli_start.py):

1. `simulate FILE --plain` (its first 20 and last 5 steps drawn, one line for the rest:
   present/window.py) against `simulate FILE --json` (every step, as one document). Goal: at
   most 2x, in CPU time (the processes' own; wall time is printed beside it, and swings with the
   machine's load).
2. For reference, once: `simulate FILE --plain --all` (every step drawn, as before issue 36:
   about 2 ms of CPU a step) against `--json`.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from _paired import Goal, finish
from cli_start import compile_routerlab, pair

ROUTERLAB = "from routerlab.cli.app import main; main()"


def long_scenario(folder: Path, steps: int) -> Path:
    """`steps` steps: x on cpu:0, then clone-and-drop pairs (the registry stays one entry)."""
    lines = ['title = "A long flow"', 'devices = ["cpu:0"]', "", "[[steps]]", 'op = "tensor"',
             'name = "x"', "values = [1.0, 2.0]", 'device = "cpu:0"']
    for i in range((steps - 1) // 2):
        lines += ["", "[[steps]]", 'op = "clone"', 'tensor = "x"', f'name = "c{i}"', "",
                  "[[steps]]", 'op = "drop"', f'tensor = "c{i}"']
    path = folder / "long.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _line(name: str, result: dict[str, Any]) -> str:
    return (f"{name}: CPU {result['cpu_ratio_median']:.2f}x (median), wall "
            f"{result['ratio_median']:.2f}x; {result['contender']['cpu_median_s']:.2f} s vs "
            f"{result['baseline']['cpu_median_s']:.2f} s of CPU")


def run(steps: int, rounds: int, every: bool) -> dict[str, Any]:
    compile_routerlab()
    with tempfile.TemporaryDirectory() as folder:
        scenario = str(long_scenario(Path(folder), steps))
        json_side = (ROUTERLAB, ["simulate", scenario, "--json"])
        plain = pair((ROUTERLAB, ["simulate", scenario, "--plain"]), json_side, rounds)
        print(_line(f"simulate --plain vs --json, {steps:,} steps", plain))
        results: dict[str, Any] = {"steps": steps, "plain": plain}
        if every:
            drawn = pair((ROUTERLAB, ["simulate", scenario, "--plain", "--all"]), json_side, 1)
            print(_line(f"simulate --plain --all vs --json, {steps:,} steps", drawn))
            results["plain_all"] = drawn
    goal = Goal(f"simulate --plain vs --json CPU, {steps:,} steps", plain["cpu_ratio_median"],
                2.0, "<=", note=f"(wall {plain['ratio_median']:.2f})")
    return {**results, "goals": [goal.to_dict()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-all", action="store_true",
                        help="skip the reference run that draws every step (slow)")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    finish(run(args.steps, args.rounds, not args.no_all), args.json)


if __name__ == "__main__":
    main()
