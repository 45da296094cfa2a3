"""The `routerlab` command: a thin Typer shell over `routerlab.core`.

Each command lives in `routerlab.cli.commands.<name>` and exposes `register(app)`. Heavy imports
(numpy, the core) happen inside the command functions, so `routerlab --help` stays fast. A run of
one command builds an app of that command alone (`build`), as click's lazy groups do: Typer
inspects every registered command's signature on every start. Every `RouterLabError` becomes one
readable line on stderr and exit code 1; nothing a user can cause ends in a traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, NoReturn

import typer

from .. import __version__
from .help import tidy

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
    "serve",
    "hub",
]
"""Modules under `routerlab.cli.commands`, in the order `--help` lists them."""


def _version(value: bool) -> None:
    if value:
        typer.echo(f"routerlab {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """RouterLab's commands."""


def build(only: str | None = None) -> typer.Typer:
    """The `routerlab` app with every command, or with the command `only` alone (its options,
    help and errors are the same either way: the group and the command path do not change)."""
    built = typer.Typer(
        name="routerlab",
        help="RouterLab: learn how Burn's router keeps tensor handles and moves tensors between "
        "devices.",
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
    )
    built.callback()(_root)
    for name in COMMAND_MODULES if only is None else [only]:
        importlib.import_module(f"routerlab.cli.commands.{name}").register(built)
    tidy(built)
    return built


def __getattr__(name: str) -> Any:
    """`app`, the whole app (what tests and `CliRunner` use), built on first use."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()["app"] = whole = build()
    return whole


def main() -> None:
    """Console-script entry point: run the app; every failure a user can cause is one line on
    stderr and a non-zero exit status, never a traceback.

    Click's usage errors (exit 2) are printed here too, not by Typer's standalone mode, whose
    rich box spans many lines; `typer.Exit(code)` keeps its exit status. A `MemoryError` that
    the limits did not foresee (docs/limits.md) still ends as one line.
    """
    requested = sys.argv[1] if len(sys.argv) > 1 else None
    try:
        code = build(requested if requested in COMMAND_MODULES else None)(standalone_mode=False)
    except _click_error() as error:
        if type(error).__name__ == "NoArgsIsHelpError":  # the help is printed already
            sys.exit(error.exit_code)
        context = getattr(error, "ctx", None)
        hint = f" (see {context.command_path} --help)" if context is not None else ""
        _fail(f"{one_line(error.format_message())}{hint}", error.exit_code)
    except typer.Abort:
        _fail("aborted", 1)
    except MemoryError:
        _fail("out of memory: try a smaller tensor or fewer hops (docs/limits.md)", 1)
    except Exception as error:
        # Imported only now: `routerlab.core` is not loaded by `--help` or by argument parsing.
        from ..core import RouterLabError

        if not isinstance(error, RouterLabError):
            raise
        _fail(one_line(str(error)), 1)
    sys.exit(code if isinstance(code, int) else 0)


def _fail(message: str, code: int) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    sys.exit(code)


def one_line(text: str) -> str:
    """`routerlab.present.terminal.one_line`, imported only when there is an error to print."""
    from ..present.terminal import one_line as escape

    return escape(text)


def _click_error() -> Any:  # type[ClickException]; its module differs between Typers
    """Click's base of usage errors, wherever this Typer keeps it (vendored by newer Typers)."""
    return next(base for base in typer.BadParameter.__mro__ if base.__name__ == "ClickException")
