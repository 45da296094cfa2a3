"""The `routerlab` command: a thin Typer shell over `routerlab.core`.

Each command lives in `routerlab.cli.commands.<name>` and exposes `register(app)`. Heavy imports
(numpy, the core) happen inside the command functions, so `routerlab --help` stays fast. Every
`RouterLabError` becomes one readable line on stderr and exit code 1; nothing a user can cause
ends in a traceback.
"""

from __future__ import annotations

import importlib
import sys

import typer

from routerlab import __version__

COMMAND_MODULES = [
    "tour",
    "doctor",
    "simulate",
    "quantize",
    "transfer",
    "compare",
    "validate",
    "lab",
    "exercises",
    "teacher",
]
"""Modules under `routerlab.cli.commands`, in the order `--help` lists them."""

app = typer.Typer(
    name="routerlab",
    help="RouterLab: learn how Burn's router keeps tensor handles and moves tensors between "
    "devices.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"routerlab {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """RouterLab's commands."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"routerlab.cli.commands.{_name}").register(app)


def main() -> None:
    """Console-script entry point: run the app, turning RouterLab's errors into one line.

    Typer's standalone mode already turns usage errors into a short message (exit 2) and
    `typer.Exit(code)` into that exit status; only RouterLab's own errors need translating.
    """
    try:
        app()
    except Exception as error:
        # Imported only now: `routerlab.core` is not loaded by `--help` or by argument parsing.
        from routerlab.core.errors import RouterLabError

        if not isinstance(error, RouterLabError):
            raise
        typer.echo(f"error: {error}", err=True)
        sys.exit(1)
