"""`routerlab quantize`: quantize a small tensor the way one of Burn's backends does, and show it.

    routerlab quantize --values '[-1.8,-1.0,0,0.5]' --scheme q8s [--scales '[0.0141]']
                       [--calibration minmax|absmean] [--backend ndarray|ndarray-tests|flex|cubecl]
                       [--json]
    routerlab quantize --random 2,16 --seed 3 --scheme q8s:block=16

Without `--scales` the scales are calibrated (dynamic quantization); the one call into the core
is `routerlab.core.quant.quantize_report`. numpy and the core are imported inside the command so
that `routerlab --help` stays fast, and `--json` imports neither rich nor the router model.
`--json` refuses a tensor above `MAX_JSON_ELEMENTS` values, before anything is quantized: its
document lists every input, q and dequantized value.
"""

from typing import Annotated

import typer

from .. import options


def register(app: typer.Typer) -> None:
    app.command(
        help="Quantize values with a Burn backend's arithmetic; show q, scales, bytes, error."
    )(quantize)


Scales = Annotated[str | None, typer.Option(
    "--scales", help="JSON list of scales (static); omit to calibrate.")]
GlobalScale = Annotated[float | None, typer.Option(
    "--global", help="The f32 global scale of a two-level scheme, with --scales.")]
Scheme = Annotated[str, typer.Option(
    "--scheme", callback=options.SCHEME, help="Scheme string, e.g. q8s, q4f:block=32 "
                                              "(docs/schemes.md).")]
CalibrationOpt = Annotated[str, typer.Option(
    "--calibration", callback=options.CALIBRATION, help="minmax or absmean (without --scales).")]
BackendOpt = Annotated[str, typer.Option(
    "--backend", callback=options.PROFILE,
    help="ndarray, ndarray-tests (NdArray's export_tests build), flex or cubecl.")]
Summary = Annotated[bool, typer.Option(
    "--summary", help="With --json: leave out the per-element arrays (input, q, scales, "
                      "dequant, bytes).")]
FlatValues = Annotated[str | None, typer.Option("--values",
                                                help="Flat JSON list of numbers, row-major.")]
FlatShape = Annotated[str | None, typer.Option(
    "--shape", help="Comma-separated shape, e.g. 2,16 (default: flat).")]
JsonOut = Annotated[bool, typer.Option(
    "--json", help="Print one JSON object (at most 64 MiB; docs/limits.md).")]
RandomShape = Annotated[str | None, typer.Option(
    "--random", help="Instead of --values: a random normal tensor of this shape.")]


def quantize(
    values: FlatValues = None, shape: FlatShape = None, random: RandomShape = None,
    seed: options.Seed = 0, scheme: Scheme = "q8s", scales: Scales = None,
    global_scale: GlobalScale = None, calibration: CalibrationOpt = "minmax",
    backend: BackendOpt = "flex", json_out: JsonOut = False, summary: Summary = False,
    plain: options.Plain = False,
) -> None:
    from ...core.quant import ARRAYS_HINT, quantize_report
    from ..tensor_input import read_tensor

    x = read_tensor(values, shape, random, seed, "quantize", scheme)
    report = quantize_report(x, scheme, backend=backend, scales=scales, global_scale=global_scale,
                             calibration=calibration, json_arrays=json_out and not summary)
    if json_out:
        from ..output import print_json

        print_json(report.to_dict(summary), hint=ARRAYS_HINT)
        return
    from ..render import make_console, to_rich

    make_console(plain).print(to_rich(report.view()))
