"""What the guided series costs a learner: every notebook run top to bottom in a fresh kernel of
this venv, as shipped, against the series' 90-second budget.

    .venv/bin/python benchmarks/notebooks.py [--budget 90]

Prints each notebook's wall time, the total, and the total's ratio to the budget, with the
machine's load average beside it (the figure swings with load: a wall-time claim lives here, never
in a timed test; tests/notebooks/test_execute.py checks what the notebooks show). Exit status 1
when the series takes longer than the budget.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_S = 90.0
"""The most the whole series may take on the 2-core machine, idle (docs/notebooks.md)."""
KERNEL = "routerlab-bench-venv"


def kernel_here(folder: Path) -> str:
    """A kernelspec whose argv is this interpreter, found first (JUPYTER_PATH): the notebooks
    import the routerlab of this venv, not another Python's."""
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "RouterLab benchmark venv", "language": "python"}
    (folder / "kernels" / KERNEL).mkdir(parents=True)
    (folder / "kernels" / KERNEL / "kernel.json").write_text(json.dumps(spec))
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        filter(None, [str(folder), os.environ.get("JUPYTER_PATH")]))
    return KERNEL


def run_notebook(path: Path, kernel: str) -> float:
    """Seconds to run `path` top to bottom (kernel start included), as test_execute.py runs it."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, kernel_name=kernel, timeout=120,
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=BUDGET_S, help="seconds for the series")
    args = parser.parse_args()
    series = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    with tempfile.TemporaryDirectory() as scratch:
        kernel = kernel_here(Path(scratch))
        times = {path.stem: run_notebook(path, kernel) for path in series}
    for name, seconds in times.items():
        print(f"{name:24} {seconds:6.1f} s")
    total = sum(times.values())
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"series: {total:.1f} s against a budget of {args.budget:g} s: ratio "
          f"{total / args.budget:.2f} (load average {load})")
    return 0 if total <= args.budget else 1


if __name__ == "__main__":
    sys.exit(main())
