"""`routerlab simulate SCENARIO`: run a scenario file step by step and show every registry.

The core (`routerlab.core.scenario`) validates and runs the file and returns data; this command
only renders it: a heading per step, then one rich table per device (`--plain` / NO_COLOR drop
the colour), or one JSON document with `--json`. A bad file or a failing step raises a
`RouterLabError`, which `routerlab.cli.app.main` prints as one line with exit code 1; with
`--json`, a run that stops still prints its document first: the steps that ran and a `failure`.
"""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .. import options

if TYPE_CHECKING:
    from rich.console import Console


def register(app: typer.Typer) -> None:
    app.command(help="Run a scenario (TOML) step by step, printing every device's registry.")(
        simulate
    )


def simulate(
    scenario: Annotated[Path | None, typer.Argument(
        metavar="SCENARIO", callback=options.scenario_path, help=options.SCENARIO_HELP,
        show_default=False)] = None,
    list_shipped: Annotated[bool, typer.Option(
        "--list", help="List the shipped scenarios by name, and run nothing.")] = False,
    json_out: options.Json = False,
    plain: options.Plain = False,
    fusion: options.Fusion = False,
    transport: options.Transport = None,
    peer: options.ScenarioPeers = None,
    fault: options.Faults = None,
    trace: Annotated[bool, typer.Option(
        "--trace", help="Also print each step's events, with when each client's device queue "
                        "ran its calls and the batches that left, and why (CubeCL's closure "
                        "queue, burn-remote's outgoing batch).")] = False,
    policy: Annotated[str | None, typer.Option(
        "--policy", callback=options.POLICY,
        help="Run every transfer under this policy (native, dequantize, requantize, reject, "
             "legacy) instead of the file's.")] = None,
) -> None:
    from ...core.remote import parse_peers
    from ...core.scenario import ScenarioRunError, load_scenario, run_scenario
    from ...core.serving import parse_fault
    from ..render import make_console, print_json, safe, to_rich

    if list_shipped:
        _list(make_console(plain))
        return
    if scenario is None:
        raise typer.BadParameter("give a scenario file or a shipped scenario's name "
                                 "(--list shows them)", param_hint="'SCENARIO'")
    loaded = load_scenario(scenario).overridden(fusion=fusion, transport=transport,
                                                peers=parse_peers(peer or ()),
                                                faults=[parse_fault(f) for f in fault or ()])
    steps = run_scenario(loaded, policy=policy, wire=trace)
    if json_out:
        done: list[dict[str, object]] = []
        doc = {"scenario": str(scenario), "title": loaded.title,
               "description": loaded.description, "devices": list(loaded.devices),
               "steps": done}
        try:
            done.extend(result.to_dict() for result in steps)
        except ScenarioRunError as failure:  # the steps that ran, then what stopped the run
            print_json({**doc, "failure": failure.to_dict()})
            raise  # main() still prints the one line on stderr and exits 1
        print_json(doc)
        return
    console = make_console(plain)
    # Everything the file says is data: shown escaped, never read as markup (cli/terminal.py).
    console.print(safe(loaded.title, style="" if plain else "bold"))
    if loaded.description:
        console.print(safe(" ".join(loaded.description.split())))
    for result in steps:
        console.print()
        console.print(safe(f"Step {result.step}: {result.description}"))
        for line in (result.note, result.error and f"error (expected): {result.error}"):
            if line:
                console.print(safe(f"  {line}"))
        for view in result.registries.values():
            console.print(to_rich(view))
        if trace:
            from ...core import Trace

            console.print(to_rich(Trace().view(result.events, f"Events of step {result.step}")))


def _list(console: "Console") -> None:
    """One line per shipped scenario: the name that runs it, and its title."""
    import tomllib

    from ... import shipped
    from ..render import safe

    names = shipped.scenario_names()
    width = max(map(len, names))
    for name, path in names.items():
        title = tomllib.loads(path.read_text(encoding="utf-8")).get("title", "")
        console.print(safe(f"{name.ljust(width)}  {title}"), soft_wrap=True)
