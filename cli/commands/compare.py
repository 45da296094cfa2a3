"""`routerlab compare`: every transfer policy side by side on one tensor, measured.

    routerlab compare [--scheme q8f] [--hops K] [--values JSON | --random SHAPE --seed N]
                      [--from cpu:0 --to cpu:1 --path P --backend B] [--json]

One table (bytes, copies, time, max error, q changed, drift) and a verdict line, both from
`routerlab.teaching.compare`; without a tensor, a seeded random 64×64 one.
"""

from typing import Annotated

import typer

from ..options import (
    SCHEME,
    Backend,
    Hops,
    PathOpt,
    Plain,
    Random,
    Seed,
    Shape,
    Source,
    Target,
    Values,
)
from ..options import JsonObject as Json
from ..tensor_input import progress_bar, read_tensor

DEFAULT_RANDOM = "64,64"


def register(app: typer.Typer) -> None:
    app.command(help="Measure every transfer policy side by side, with a verdict.")(compare)


def compare(
    scheme: Annotated[str, typer.Option(
        "--scheme", callback=SCHEME, help="Scheme string, e.g. q8f, q2f, q4s:block=32.")] = "q8f",
    hops: Hops = 3, values: Values = None, shape: Shape = None, random: Random = None,
    seed: Seed = 0, source: Source = "cpu:0", target: Target = "cpu:1", path: PathOpt = None,
    backend: Backend = None, json_out: Json = False, plain: Plain = False,
) -> None:
    from ...core.fix import POLICY_NAMES
    from ...teaching.compare import compare_policies
    from ...teaching.measure import on_backend
    from ..render import make_console, print_json, to_rich

    if values is None and random is None:
        random = DEFAULT_RANDOM
    x = read_tensor(values, shape, random, seed, "compare", scheme)
    work = x.size * hops * len(POLICY_NAMES)
    with progress_bar(make_console(plain, stderr=True), work) as progress:
        comparison = compare_policies(x, scheme, source=on_backend(source, backend),
                                      target=on_backend(target, backend), path=path, hops=hops,
                                      progress=progress)
    if json_out:
        print_json(comparison.to_dict())
        return
    console = make_console(plain)
    console.print(to_rich(comparison.view()))
    console.print(f"verdict: {comparison.verdict()}", markup=False)
