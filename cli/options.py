"""The options several commands share, declared once (Typer's `Annotated` style).

A flag that means the same thing everywhere is written here, so its name, its help and its
default cannot drift between `simulate`, `validate`, `transfer` and the rest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

ScenarioFile = Annotated[Path, typer.Argument(metavar="SCENARIO", help="A scenario .toml file.")]
Plain = Annotated[bool, typer.Option("--plain", help="No colour.")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON document (at most 64 MiB; "
                                                   "docs/limits.md).")]
Fusion = Annotated[bool, typer.Option(
    "--fusion", help="As if the client were built with Burn's fusion feature: a legacy quantize "
                     "reaches the server's todo!() and ends the session.")]
Transport = Annotated[str | None, typer.Option(
    "--transport", help="How cross-peer downloads travel: iroh (gives up after 300 s, "
                        "simulated) or websocket (waits forever).")]
Peers = Annotated[list[str] | None, typer.Option(
    "--peer", metavar="NAME=ws://HOST:PORT",
    help="A served peer (routerlab serve): its devices, NAME/cpu:0 …, run in that process. "
         "Repeat for more; replaces a peer of the same name in the scenario's \\[peers]. "
         "The peer's token is read from ROUTERLAB_TOKEN.")]
Faults = Annotated[list[str] | None, typer.Option(
    "--fault", metavar="step=N,kind=K,...",
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
Source = Annotated[str, typer.Option("--from", help="Source device, e.g. cpu:0.")]
Target = Annotated[str, typer.Option("--to", help="Target device, e.g. cpu:1, peer2/cpu:0.")]
PathOpt = Annotated[str | None, typer.Option("--path", help="Force a path: local, bytes, "
                                                            "dispatch or bridge (default: from "
                                                            "the devices). dispatch and bridge "
                                                            "between router devices are "
                                                            "RouterLab's own: Burn moves those by "
                                                            "local or bytes (docs/burn.md, 6).")]
Hops = Annotated[int, typer.Option("--hops", help="Moves back and forth, 1 to 1000 "
                                                  "(docs/limits.md).")]
Backend = Annotated[str | None, typer.Option("--backend", help="Profile for devices given "
                                                               "without @profile: ndarray, flex "
                                                               "or cubecl.")]
JsonObject = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
