"""`routerlab doctor`: what this machine offers RouterLab, and why a missing piece is missing."""

import os
import platform
from pathlib import Path

import typer

from .. import options

PEERS_ENV = "ROUTERLAB_PEERS"
"""Served peers to probe, as `--peer` takes them, separated by spaces or commas."""


def register(app: typer.Typer) -> None:
    app.command(help="Check Python, numpy, CuPy/GPU, devices and Jupyter; "
                     "say why anything is missing.")(doctor)


def doctor(
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    plain: bool = typer.Option(False, "--plain", help="No colour."),
    peer: options.Peers = None,
    scenario: Path | None = typer.Option(
        None, "--scenario", callback=options.scenario_path, metavar="SCENARIO",
        help="Also probe the served peers this scenario's \\[peers] names (a file or a shipped "
             "scenario's name)."),
) -> None:
    from ... import BURN_COMMIT, __version__
    from ...teaching.doctor import diagnose
    from ..render import make_console, print_json, to_rich

    report = diagnose(_named_peers(peer or [], scenario))
    unreachable = [p.name for p in report.peers if not p.ok]  # asked for and not there: exit 1
    if json_out:
        print_json(report.to_dict())
        if unreachable:
            raise typer.Exit(1)
        return
    console = make_console(plain)
    console.print(f"RouterLab {__version__} on Python {platform.python_version()}, "
                  f"modelling Burn {BURN_COMMIT[:7]}")
    console.print(to_rich(report.view()))
    console.print(to_rich(report.advertised_view()))
    missing = {check.name for check in report.checks if not check.ok}
    if "jupyterlab" in missing:  # the report's own probe, not a second one
        # markup=False: rich would read "[notebooks]" as a style tag and print 'routerlab'
        console.print("JupyterLab is missing: pip install 'routerlab[notebooks]'", markup=False)
    if unreachable:
        console.print(f"error: {', '.join(unreachable)} did not answer; is the peer served "
                      "(routerlab serve) at that address?", markup=False, highlight=False)
        raise typer.Exit(1)


def _named_peers(flags: list[str], scenario: Path | None) -> dict[str, str]:
    """The peers to probe: ROUTERLAB_PEERS, then a scenario's [peers], then --peer (the later
    one wins for a name given twice)."""
    from ...core.remote import parse_peers

    named = parse_peers(os.environ.get(PEERS_ENV, "").replace(",", " ").split())
    if scenario is not None:
        from ...core.scenario import load_scenario

        named.update(load_scenario(scenario).peers)
    return {**named, **parse_peers(flags)}
