"""`routerlab transfer`: quantize a tensor, move it under one policy, and show what it cost.

    routerlab transfer (--values JSON [--shape S] | --random SHAPE --seed N) --scheme q8s
                       --from cpu:0 --to cpu:1 --policy native [--path local|bytes|dispatch|bridge]
                       [--hops K] [--backend ndarray|flex|cubecl] [--peer NAME=ws://HOST:PORT]
                       [--json]

The measuring is `routerlab.teaching.measure`; this module parses options, draws a progress
bar for long work and renders. The exit status is 1 when the transfer did not happen (a refusal,
or Burn's panic under `legacy`); with `--json` the one JSON object is printed first.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .. import options

if TYPE_CHECKING:
    from rich.console import Console

    from ...teaching.measure import Progress

LONG_WORK = 1 << 20
"""Elements × hops from which a progress bar is drawn (on a terminal)."""


def register(app: typer.Typer) -> None:
    app.command(help="Move a quantized tensor under one policy and measure every hop.")(transfer)


Values = Annotated[str | None, typer.Option("--values", help="Flat JSON list of numbers.")]
Shape = Annotated[str | None, typer.Option("--shape", help="Shape for --values, e.g. 2,16.")]
Random = Annotated[str | None, typer.Option("--random", help="A random normal tensor of this "
                                                              "shape instead of --values.")]
Seed = Annotated[int, typer.Option("--seed", help="Seed for --random.")]
Source = Annotated[str, typer.Option("--from", help="Source device, e.g. cpu:0.")]
Target = Annotated[str, typer.Option("--to", help="Target device, e.g. cpu:1, peer2/cpu:0.")]
PathOpt = Annotated[str | None, typer.Option("--path", help="Force a path: local, bytes, "
                                                            "dispatch or bridge (default: from "
                                                            "the devices).")]
Hops = Annotated[int, typer.Option("--hops", help="Moves back and forth, 1 to 1000 "
                                                  "(docs/limits.md).")]
Backend = Annotated[str | None, typer.Option("--backend", help="Profile for devices given "
                                                               "without @profile: ndarray, flex "
                                                               "or cubecl.")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
Plain = Annotated[bool, typer.Option("--plain", help="No colour.")]


def transfer(
    values: Values = None, shape: Shape = None, random: Random = None, seed: Seed = 0,
    scheme: Annotated[str, typer.Option("--scheme", help="Scheme string, e.g. q8s, "
                                                         "q4f:block=32.")] = "q8s",
    source: Source = "cpu:0", target: Target = "cpu:1",
    policy: Annotated[str, typer.Option("--policy", help="native, dequantize, requantize, "
                                                         "reject or legacy.")] = "native",
    path: PathOpt = None, hops: Hops = 1, backend: Backend = None, json_out: Json = False,
    plain: Plain = False, peer: options.Peers = None,
) -> None:
    from ...core import Policy
    from ...core.remote import parse_peers
    from ...teaching.measure import measure_transfer, on_backend
    from ..render import make_console, print_json, to_rich

    chosen = Policy.parse(policy)
    x = read_tensor(values, shape, random, seed, "transfer")
    console = make_console(plain)
    with progress_bar(make_console(plain, stderr=True), x.size * hops) as progress:
        measured = measure_transfer(x, scheme, policy=chosen, source=on_backend(source, backend),
                                    target=on_backend(target, backend), path=path, hops=hops,
                                    progress=progress, peers=parse_peers(peer or ()))
    if json_out:
        print_json(measured.to_dict())
    else:
        render_plan(console, measured.plan, plain)
        console.print(to_rich(measured.view()))
    if not measured.ok:
        raise SystemExit(1)  # not typer.Exit: without standalone mode click swallows its code


def read_tensor(values: str | None, shape: str | None, random: str | None, seed: int,
                command: str) -> Any:
    """The float tensor of `--values/--shape` or `--random/--seed`, read one way by the
    transfer, compare and quantize commands. A `--random` shape whose `command` would not fit
    in this machine's free memory is refused before anything is allocated (typed `--values`
    are bounded by the command line itself)."""
    import math

    from ...core.limits import PEAK_PAYLOAD_RATIO, require_memory
    from ...core.quant import parse_shape, random_tensor, tensor_from

    if random is None:
        return tensor_from(values, shape)
    dims = parse_shape(random)
    ratio = PEAK_PAYLOAD_RATIO[command]
    require_memory(ratio * 4 * math.prod(dims), f"{command} of shape {list(dims)} ({ratio} × "
                                                f"its f32 payload)")
    return random_tensor(random, seed, values, shape)


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


def render_plan(console: "Console", plan: Any, plain: bool) -> None:
    """What the guard said before the transfer ran: path, policy, action, notes, walls."""
    lines = [f"{plan.source} -> {plan.target} by path {plan.path}, policy {plan.policy}: "
             f"{plan.action}"]
    lines += [f"note: {note}" for note in plan.notes]
    lines += [f"wall: {wall.line()}" for wall in plan.walls]
    for line in lines:
        console.print(line, markup=False, highlight=not plain)

