"""Every command is thin: a function of `cli/commands/` parses its options, makes one call into
its room (core, teaching, exercises, notebook) and renders; none is over 40 lines (issue 36).

The commands are read from the app itself (`routerlab.cli.app.build`), so a command registered
with `@app.command()` and one registered as `app.command()(fn)` are measured alike, each from
its `def` (decorators included) to its last line. The one call is counted in the command's own
body (its syntax tree): a call of a name imported from a routerlab module outside `routerlab.cli`
is a call into a room, and no path through the body (an `if` that returns or raises is a path
of its own) makes more than one.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import typer

from routerlab.cli.app import build

LIMIT = 40


ONE_CALL = ("simulate", "quantize", "hub", "lab")
"""The commands measured by the one-call rule: those made one call each so far (issue 36 item 5);
the others join this list as their extra calls move into their rooms."""


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


def _room_names(function: Callable[..., Any]) -> set[str]:
    """The names bound, in `function`'s module or body, by imports from routerlab modules outside
    `routerlab.cli` (relative imports resolved against the module's package)."""
    package = (function.__globals__.get("__package__") or "").split(".")
    tree = ast.parse(Path(inspect.getsourcefile(function) or "").read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        base = package[:len(package) - node.level + 1] if node.level else []
        source = ".".join([*base, *filter(None, [node.module])])
        if source.startswith("routerlab.") and not source.startswith("routerlab.cli"):
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def _most_room_calls(function: Callable[..., Any]) -> int:
    """The most calls into rooms on one path through `function`'s body."""
    rooms = _room_names(function)
    definition = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
    assert isinstance(definition, ast.FunctionDef)

    def calls(node: ast.AST) -> int:
        found = 0
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            callee = call.func
            while isinstance(callee, ast.Attribute):  # `module.function`, `Class.parse`
                callee = callee.value
            found += isinstance(callee, ast.Name) and callee.id in rooms
        return found

    def most(body: list[ast.stmt]) -> int:
        if not body:
            return 0
        first, rest = body[0], body[1:]
        if isinstance(first, ast.If):
            here = calls(first.test)
            if isinstance(first.body[-1], ast.Return | ast.Raise):  # a path of its own
                return here + max(most(first.body), most(first.orelse + rest))
            return here + max(most(first.body), most(first.orelse)) + most(rest)
        return calls(first) + most(rest)

    return most(definition.body)


def test_each_thin_command_makes_one_call_into_its_room() -> None:
    commands = dict(_commands(build()))
    calls = {name: _most_room_calls(commands[name]) for name in ONE_CALL}
    assert calls == dict.fromkeys(ONE_CALL, 1), calls


def test_the_count_sees_two_room_calls_on_one_path_and_one_on_each_of_two(tmp_path: Path) -> None:
    """The same count on a module of two commands: one calls two room functions in a row, the
    other one on each side of an `if` that returns."""
    module = tmp_path / "two_calls.py"
    module.write_text(textwrap.dedent("""\
        from routerlab.core.quant import parse_floats, parse_shape


        def two(text: str) -> None:
            parse_shape(text)
            parse_floats("--values", text)


        def one_each(text: str, shape: bool) -> None:
            if shape:
                return print(parse_shape(text))
            print(parse_floats("--values", text))
        """), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("two_calls", module)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    assert _most_room_calls(loaded.two) == 2
    assert _most_room_calls(loaded.one_each) == 1
