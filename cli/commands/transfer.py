"""`routerlab transfer`: quantize a tensor, move it under one policy, and show what it cost.

    routerlab transfer (--values JSON [--shape S] | --random SHAPE --seed N) --scheme q8s
                       --from cpu:0 --to cpu:1 --policy native [--path local|bytes|dispatch|bridge]
                       [--hops K] [--backend ndarray|flex|cubecl] [--peer NAME=ws://HOST:PORT]
                       [--json]

The measuring is `routerlab.teaching.measure`; this module parses options, draws a progress
bar for long work and renders. The exit status is 1 when the transfer did not happen (a refusal,
or Burn's panic under `legacy`); with `--json` the one JSON object is printed first.
"""

from typing import TYPE_CHECKING, Annotated, Any

import typer

from .. import options
from ..options import Backend, Hops, PathOpt, Plain, Random, Seed, Shape, Source, Target, Values
from ..options import JsonObject as Json
from ..tensor_input import progress_bar, read_tensor

if TYPE_CHECKING:
    from rich.console import Console


def register(app: typer.Typer) -> None:
    app.command(help="Move a quantized tensor under one policy and measure every hop.")(transfer)


def transfer(
    values: Values = None, shape: Shape = None, random: Random = None, seed: Seed = 0,
    scheme: Annotated[str, typer.Option(
        "--scheme", callback=options.SCHEME, help="Scheme string, e.g. q8s, q4f:block=32.")
    ] = "q8s",
    source: Source = "cpu:0", target: Target = "cpu:1",
    policy: Annotated[str, typer.Option(
        "--policy", callback=options.POLICY,
        help="native, dequantize, requantize, reject or legacy.")] = "native",
    path: PathOpt = None, hops: Hops = 1, backend: Backend = None, json_out: Json = False,
    plain: Plain = False, peer: options.Peers = None,
) -> None:
    from ...core import Policy
    from ...core.remote import parse_peers
    from ...teaching.measure import measure_transfer, on_backend
    from ..render import make_console, print_json, to_rich

    chosen = Policy.parse(policy)
    x = read_tensor(values, shape, random, seed, "transfer", scheme)
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


def render_plan(console: "Console", plan: Any, plain: bool) -> None:
    """What the guard said before the transfer ran: path, policy, action, notes, walls."""
    lines = [f"{plan.source} -> {plan.target} by path {plan.path}, policy {plan.policy}: "
             f"{plan.action}"]
    lines += [f"note: {note}" for note in plan.notes]
    lines += [f"wall: {wall.line()}" for wall in plan.walls]
    for line in lines:
        console.print(line, markup=False, highlight=not plain)

