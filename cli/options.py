"""The options several commands share, declared once (Typer's `Annotated` style).

A flag that means the same thing everywhere is written here, so its name, its help and its
default cannot drift between `simulate`, `validate`, `transfer` and the rest.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer


def parsed_as(module: str, name: str) -> Callable[[Any], Any]:
    """A Typer callback that checks an option's value with the core's own parser
    (`routerlab.core.<module>.<name>`, imported only when the command runs) and turns its error
    into a usage error: a bad value on the command line exits 2, as a bad flag does, while a
    refused or failed operation exits 1. The value itself is passed on unchanged."""

    def check(value: Any) -> Any:
        if value is None:
            return value
        from ..core import RouterLabError

        parse: Any = importlib.import_module(f"routerlab.core.{module}")
        for part in name.split("."):
            parse = getattr(parse, part)
        try:
            parse(value)
        except RouterLabError as error:
            raise typer.BadParameter(str(error)) from None
        return value

    return check


def parsed_each(module: str, name: str) -> Callable[[Any], Any]:
    """`parsed_as` for an option given any number of times: each value is checked."""
    one = parsed_as(module, name)

    def check(values: Any) -> Any:
        for value in values or ():
            one(value)
        return values

    return check


POLICY = parsed_as("base.policies", "Policy.parse")
TRANSPORT = parsed_as("base.request", "Transport.parse")
PATH = parsed_as("base.devices", "Path.parse")
PROFILE = parsed_as("base.profiles", "Profile.parse")
DEVICE = parsed_as("base.devices", "parse_device")
SCHEME = parsed_as("quant.notation", "parse_scheme")
CALIBRATION = parsed_as("quant.calibration", "Calibration.parse")
PEER = parsed_as("remote", "parse_peers")
FAULT = parsed_each("serving", "parse_fault")
ADDRESS = parsed_each("remote", "check_address")



def scenario_path(given: Path | None) -> Path | None:
    """A scenario argument as a file: the path if anything is there (the core's reader judges
    it: a folder or a FIFO is refused there), else the shipped scenario of that name
    (`shared-add`; `scenarios/shared-add.toml` as the docs write it works from any folder).
    Neither is a usage error (exit 2)."""
    if given is None:
        return None
    path = given.expanduser()
    if path.exists() or path.is_symlink():
        return path
    from .. import shipped

    try:
        return shipped.scenario(str(given))
    except shipped.NotShipped as missing:
        raise typer.BadParameter(str(missing)) from None


SCENARIO_HELP = ("A scenario: a .toml file, or the name of a shipped one (`routerlab simulate "
                 "--list` lists them).")
ScenarioFile = Annotated[Path, typer.Argument(metavar="SCENARIO", callback=scenario_path,
                                              help=SCENARIO_HELP, show_default=False)]
Plain = Annotated[bool, typer.Option("--plain", help="No colour.")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON document (at most 64 MiB; "
                                                   "docs/limits.md).")]
Fusion = Annotated[bool, typer.Option(
    "--fusion", help="As if the client were built with Burn's fusion feature: a legacy quantize "
                     "reaches the server's todo!() and ends the session.")]
Transport = Annotated[str | None, typer.Option(
    "--transport", callback=TRANSPORT,
    help="How cross-peer downloads travel: iroh (gives up after 300 s, simulated) or websocket "
         "(waits forever).")]
_PEER_HELP = ("A served peer (routerlab serve): its devices, NAME/cpu:0 …, run in that process. "
              "Repeat for more. The peer's token is read from ROUTERLAB_TOKEN.")
Peers = Annotated[list[str] | None, typer.Option(
    "--peer", metavar="NAME=ws://HOST:PORT", callback=PEER, help=_PEER_HELP)]
ScenarioPeers = Annotated[list[str] | None, typer.Option(
    "--peer", metavar="NAME=ws://HOST:PORT", callback=PEER,
    help=_PEER_HELP + " Replaces a peer of the same name in the scenario's \\[peers].")]
Faults = Annotated[list[str] | None, typer.Option(
    "--fault", metavar="step=N,kind=K,...", callback=FAULT,
    help="Inject a fault into a served peer before step N: kind kill (peer, when=before|during|"
         "after), drop or delay (peer, message, seconds), oom (device, limit), restart (peer) or "
         "race; the fields of a \\[\\[faults]] table (docs/faults.md). Repeat for more.")]
CourseFolder = Annotated[Path | None, typer.Option(
    "--catalog", metavar="DIR",
    help="The teacher's course folder (a copy of the catalog with their seals; default: the "
         "installed catalog, read only).")]

# The tensor and the move of `transfer`, `compare` and `quantize`.
Values = Annotated[str | None, typer.Option("--values", help="Flat JSON list of numbers.")]
Shape = Annotated[str | None, typer.Option("--shape", help="Shape for --values, e.g. 2,16.")]
Random = Annotated[str | None, typer.Option("--random", help="A random normal tensor of this "
                                                              "shape instead of --values.")]
Seed = Annotated[int, typer.Option("--seed", help="Seed for --random.")]
Source = Annotated[str, typer.Option("--from", callback=DEVICE, help="Source device, e.g. cpu:0.")]
Target = Annotated[str, typer.Option("--to", callback=DEVICE,
                                     help="Target device, e.g. cpu:1, peer2/cpu:0.")]
PathOpt = Annotated[str | None, typer.Option(
    "--path", callback=PATH,
    help="Force a path: local, bytes, dispatch or bridge (default: from the devices). dispatch "
         "and bridge between router devices are RouterLab's own: Burn moves those by local or "
         "bytes (docs/burn.md, 6).")]
MAX_HOPS = 1000
"""`routerlab.core.base.limits.MAX_HOPS`, repeated so that `--help` imports no core (a test ties the
two)."""


def _hops(hops: int) -> int:
    """Out of range is a usage error (exit 2), in the words the core would use."""
    if not 1 <= hops <= MAX_HOPS:
        raise typer.BadParameter(f"hops must be between 1 and {MAX_HOPS} (--hops), got {hops}")
    return hops


Hops = Annotated[int, typer.Option("--hops", callback=_hops,
                                   help=f"Moves back and forth, 1 to {MAX_HOPS} "
                                        "(docs/limits.md).")]
Backend = Annotated[str | None, typer.Option(
    "--backend", callback=PROFILE,
    help="Profile for devices given without @profile: ndarray, flex or cubecl.")]
JsonObject = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
