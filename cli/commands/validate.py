"""`routerlab validate SCENARIO [--policy P]`: the transfer guard over a whole flow, rehearsed.

Every transfer of a quantized tensor is listed with what its policy would do; a step that would
fail (and does not expect to) makes the exit status 1. `--policy` replaces the run's and every
transfer's policy, to ask what the flow would do under it. The judging is
`routerlab.core.scenario.predict.validate_flow`: the same steps rehearsed on a private twin of
the deployment.
"""

import dataclasses
from typing import Annotated

import typer

from .. import options


def register(app: typer.Typer) -> None:
    app.command(help="Check a scenario's quantized transfers before running it (exit 1 if the "
                     "flow would fail).")(validate)


def validate(
    scenario: options.ScenarioFile,
    policy: Annotated[str | None, typer.Option(
        "--policy", callback=options.POLICY, help="Judge every transfer under this policy "
                                                  "instead.")] = None,
    json_out: options.Json = False,
    plain: options.Plain = False,
    fusion: options.Fusion = False,
    transport: options.Transport = None,
    peer: options.ScenarioPeers = None,
) -> None:
    from ...core.remote import parse_peers
    from ...core.scenario import load_scenario, validate_flow
    from ..render import make_console, print_json, safe, to_rich

    loaded = load_scenario(scenario).overridden(fusion=fusion, transport=transport,
                                                peers=parse_peers(peer or ()))
    report = validate_flow(loaded, policy)
    if json_out:
        print_json(report.to_dict())
    else:
        console = make_console(plain)
        # The summary is printed once, last (after the walls), not also as the table's caption.
        console.print(to_rich(dataclasses.replace(report.view(), caption="")))
        for transfer in report.transfers:
            for wall in transfer.plan.walls:
                console.print(safe(f"  step {transfer.step} wall: {wall.line()}"))
            for note in transfer.plan.notes:
                console.print(safe(f"  step {transfer.step} note: {note}"))
        console.print(safe(report.summary()))
    if not report.ok:
        raise SystemExit(1)  # not typer.Exit: without standalone mode click swallows its code
