"""The benchmarks' progress bar: rich, on stderr, transient, and only when stderr is a terminal.

    with steps(["int8: raw copy 1/5", ..., "int8: requantize memory"]) as step:
        for ...:
            seconds = timed(run)   # the timed call
            step()                 # between timed calls, never inside one

Piped or redirected output (`python benchmarks/transfer.py > out.txt`, CI logs) gets no bar and
no escape codes: the report on stdout stays exactly what it was. The bar has no refresh thread
(`auto_refresh=False`): it redraws only when `step` is called, so nothing runs alongside a timed
call to take CPU or cache from it, and a benchmark judged on process CPU time (registry.py) is not
charged for it. Each benchmark closes its bar before it prints, so the bar never interleaves with
the report.

Imported by the benchmark scripts as a sibling module (`python benchmarks/NAME.py` puts this
folder first on `sys.path`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

Step = Callable[[], None]
"""`step()`: the step under way is done; the bar moves on and shows the next one's label."""


def _no_bar() -> None:
    pass


@contextmanager
def steps(labels: Sequence[str], console: Console | None = None) -> Iterator[Step]:
    """A bar with one step per label, showing the label of the step under way, on `console`
    (default: stderr); drawn only when that is a terminal."""
    console = console if console is not None else Console(stderr=True)
    if not console.is_terminal or not labels:
        yield _no_bar
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True, auto_refresh=False,
                  redirect_stdout=False, redirect_stderr=False) as bar:
        task = bar.add_task(labels[0], total=len(labels))
        done = 0

        def step() -> None:
            nonlocal done
            done += 1
            what = labels[done] if done < len(labels) else "done"
            bar.update(task, completed=done, description=what, refresh=True)

        yield step
