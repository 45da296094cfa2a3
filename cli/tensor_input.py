"""The tensor the `transfer`, `compare` and `quantize` commands read, and the progress bar
their long work draws: one reading and one bar for the three commands."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from ..teaching.measure import Progress

LONG_WORK = 1 << 20
"""Elements × hops from which a progress bar is drawn (on a terminal)."""


def read_tensor(values: str | None, shape: str | None, random: str | None, seed: int,
                command: str, scheme: Any = None) -> Any:
    """The float tensor of `--values/--shape` or `--random/--seed`, read one way by the
    transfer, compare and quantize commands. A value the options' syntax or bounds reject is a
    usage error (exit 2), and so is a `--scheme` (parsed) whose `store=packed-…@DIM` names a
    dimension the tensor lacks (a backend that rewrites the store would otherwise drop it
    unsaid); a `--random` shape whose `command` would not fit in this machine's free memory is
    refused (exit 1) before anything is allocated (typed `--values` are bounded by the command
    line itself)."""
    import math

    import typer

    from ..core import RouterLabError
    from ..core.base.limits import PEAK_PAYLOAD_RATIO, require_memory
    from ..core.quant import parse_shape, random_tensor, tensor_from

    try:  # what the options say is read here: a bad value is a usage error (exit 2)
        if random is None:
            typed = tensor_from(values, shape)
            _packing_dim(scheme, typed.shape)
            return typed
        dims = parse_shape(random)
    except RouterLabError as error:
        raise typer.BadParameter(str(error)) from None
    _packing_dim(scheme, tuple(dims))
    ratio = PEAK_PAYLOAD_RATIO[command]
    # this machine's free memory: a refusal (exit 1), not a fault of the command line
    require_memory(ratio * 4 * math.prod(dims), f"{command} of shape {list(dims)} ({ratio} × "
                                                f"its f32 payload)")
    try:
        return random_tensor(random, seed, values, shape)
    except RouterLabError as error:
        raise typer.BadParameter(str(error)) from None


def _packing_dim(scheme: Any, shape: tuple[int, ...]) -> None:
    import typer

    from ..core.quant import parse_scheme

    if isinstance(scheme, str):  # the option's text (its callback checked the syntax)
        scheme = parse_scheme(scheme)
    store = getattr(scheme, "store", None)
    if store is not None and store.is_packed and store.dim >= len(shape):
        raise typer.BadParameter(f"{scheme}: packing dim {store.dim} does not exist in a "
                                 f"rank-{len(shape)} tensor (@DIM counts from the innermost, "
                                 f"0 to {len(shape) - 1})")


@contextmanager
def progress_bar(console: "Console", work: int) -> Iterator["Progress | None"]:
    """A rich progress bar fed by the core's plain callback, for long work on a terminal only."""
    if work < LONG_WORK or not console.is_terminal:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    # MofN shows "0/?" until the core reports a total (a plain "{task.total}" would say "None");
    # the spinner and the clock turn (rich redraws from a thread) while one long move runs.
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                  transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def advance(done: int, total: int, what: str) -> None:
            bar.update(task, completed=done, total=total, description=what)

        yield advance
