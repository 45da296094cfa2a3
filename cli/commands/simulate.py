"""`routerlab simulate SCENARIO`: run a scenario file step by step and show every registry.

The core validates and runs the file and returns data, in one call
(`routerlab.core.scenario.simulate`); this command only renders it: a heading per
step, then one rich table per device (`--plain` / NO_COLOR drop the colour), or one JSON document
with `--json`. A long run draws its first and last steps and
one line for those between (`present/window.py`; `--all` draws every one). A bad file or a
failing step raises a `RouterLabError`, which `routerlab.cli.app.main` prints as one line with
exit code 1; with `--json`, a run that stops still prints its document first: the steps that ran
and a `failure`.
"""

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .. import options

if TYPE_CHECKING:
    from rich.console import Console

    from ...core.scenario import Scenario, StepResult


def register(app: typer.Typer) -> None:
    app.command(help="Run a scenario (TOML) step by step, printing every device's registry.")(
        simulate
    )


Listing = Annotated[bool, typer.Option(
    "--list", help="List the shipped scenarios by name, and run nothing.")]
Events = Annotated[bool, typer.Option(
    "--trace", help="Also print each step's events, with when each client's device queue ran "
                    "its calls and the batches that left, and why (CubeCL's closure queue, "
                    "burn-remote's outgoing batch).")]
RunPolicy = Annotated[str | None, typer.Option(
    "--policy", callback=options.POLICY,
    help="Run every transfer under this policy (native, dequantize, requantize, reject, legacy) "
         "instead of the file's.")]
Every = Annotated[bool, typer.Option(
    "--all", help="Draw every step. Without it a long run draws its first 20 and last 5 steps "
                  "and says in one line which it left out (--json holds them all).")]


def simulate(
    scenario: Annotated[Path | None, typer.Argument(
        metavar="SCENARIO", callback=options.scenario_path, help=options.SCENARIO_HELP,
        show_default=False)] = None,
    list_shipped: Listing = False, json_out: options.Json = False, plain: options.Plain = False,
    fusion: options.Fusion = False, transport: options.Transport = None,
    peer: options.ScenarioPeers = None, fault: options.Faults = None, trace: Events = False,
    policy: RunPolicy = None, every: Every = False,
) -> None:
    from ...core.scenario import simulate as start
    from ...teaching.scenarios import scenario_titles
    from ..render import make_console

    if list_shipped:
        return _list(make_console(plain), scenario_titles())
    if scenario is None:
        raise typer.BadParameter("give a scenario file or a shipped scenario's name "
                                 "(--list shows them)", param_hint="'SCENARIO'")
    run = start(scenario, fusion=fusion, transport=transport, peers=peer or (),
                faults=fault or (), policy=policy, wire=trace)
    if json_out:
        return _print_json(scenario, run.scenario, run.steps)
    _draw(make_console(plain), run.scenario, run.steps, trace=trace, every=every, plain=plain)


def _print_json(scenario: Path, loaded: "Scenario", steps: "Iterable[StepResult]") -> None:
    """The whole run as one document; a run that stops prints the steps that ran and a
    `failure`, then the error goes up (main() prints its one line on stderr and exits 1)."""
    from ...core.scenario import ScenarioRunError
    from ..render import print_json

    done: list[dict[str, object]] = []
    doc = {"scenario": str(scenario), "title": loaded.title, "description": loaded.description,
           "devices": list(loaded.devices), "steps": done}
    try:
        done.extend(result.to_dict() for result in steps)
    except ScenarioRunError as failure:
        print_json({**doc, "failure": failure.to_dict()})
        raise
    print_json(doc)


def _draw(console: "Console", loaded: "Scenario", steps: "Iterable[StepResult]", *, trace: bool,
          every: bool, plain: bool) -> None:
    """A heading per step and a table per device; a long run through `present.window` (its
    first and last steps, one line for the rest) unless `every`."""
    from ...core import Trace
    from ...present.window import LeftOut, window
    from ..render import safe, to_rich

    # Everything the file says is data: shown escaped, never as markup (present/rich.py `safe`).
    console.print(safe(loaded.title, style="" if plain else "bold"))
    if loaded.description:
        console.print(safe(" ".join(loaded.description.split())))
    for result in steps if every else window(steps):
        console.print()
        if isinstance(result, LeftOut):
            console.print(safe(result.line("--all draws every step; --json holds them all.")))
            continue
        console.print(safe(f"Step {result.step}: {result.description}"))
        for line in (result.note, result.error and f"error (expected): {result.error}"):
            if line:
                console.print(safe(f"  {line}"))
        for view in result.registries.values():
            console.print(to_rich(view))
        if trace:
            console.print(to_rich(Trace().view(result.events, f"Events of step {result.step}")))


def _list(console: "Console", titles: dict[str, str]) -> None:
    """One line per shipped scenario: the name that runs it, and its title."""
    from ..render import safe

    width = max(map(len, titles))
    for name, title in titles.items():
        console.print(safe(f"{name.ljust(width)}  {title}"), soft_wrap=True)
