"""Every command is thin: a function of `cli/commands/` parses its options, makes one call into
its room (core, teaching, exercises, notebook) and renders; none is over 40 lines (issue 36).

The commands are read from the app itself (`routerlab.cli.app.build`), so a command registered
with `@app.command()` and one registered as `app.command()(fn)` are measured alike, each from
its `def` (decorators included) to its last line.
"""

from __future__ import annotations

import importlib.util
import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import typer

from routerlab.cli.app import build

LIMIT = 40


def _commands(app: typer.Typer, prefix: str = "") -> Iterator[tuple[str, Callable[..., Any]]]:
    for command in app.registered_commands:
        assert command.callback is not None
        yield prefix + (command.name or command.callback.__name__), command.callback
    for group in app.registered_groups:
        assert group.typer_instance is not None
        name = group.name or group.typer_instance.info.name
        yield from _commands(group.typer_instance, f"{prefix}{name} ")


def _lengths(app: typer.Typer) -> dict[str, int]:
    return {name: len(inspect.getsourcelines(callback)[0]) for name, callback in _commands(app)}


def test_no_command_function_is_over_40_lines() -> None:
    lengths = _lengths(build())
    assert len(lengths) >= 30 and "simulate" in lengths and "exercises check" in lengths
    long = {name: n for name, n in lengths.items() if n > LIMIT}
    assert long == {}, long


def test_the_measure_sees_a_long_command_in_a_group(tmp_path: Path) -> None:
    """The same measure on an app with a 46-line command inside a group, read from its file."""
    module = tmp_path / "long_command.py"
    module.write_text("def long(x: int = 0) -> None:\n" + "    x += 1\n" * 45, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("long_command", module)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    app, group = typer.Typer(), typer.Typer(name="group")
    group.command()(loaded.long)
    app.add_typer(group)
    app.command()(_lengths)
    lengths = _lengths(app)
    assert lengths["group long"] == 46 and lengths["_lengths"] == 2
