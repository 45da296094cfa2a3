"""`routerlab doctor`: what this machine offers RouterLab, and why a missing piece is missing."""

from __future__ import annotations

import platform

import typer


def register(app: typer.Typer) -> None:
    app.command(help="Check Python, numpy, CuPy/GPU, devices and Jupyter; "
                     "say why anything is missing.")(doctor)


def doctor(
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    plain: bool = typer.Option(False, "--plain", help="No colour."),
) -> None:
    from routerlab import BURN_COMMIT, __version__
    from routerlab.cli.render import make_console, print_json, to_rich
    from routerlab.teaching.doctor import diagnose

    report = diagnose()
    if json_out:
        print_json(report.to_dict())
        return
    console = make_console(plain)
    console.print(f"RouterLab {__version__} on Python {platform.python_version()}, "
                  f"modelling Burn {BURN_COMMIT[:7]}")
    console.print(to_rich(report.view()))
    console.print(to_rich(report.advertised_view()))
    missing = {check.name for check in report.checks if not check.ok}
    if "jupyterlab" in missing:  # the report's own probe, not a second one
        console.print("JupyterLab is missing: pip install 'routerlab[notebooks]'")
