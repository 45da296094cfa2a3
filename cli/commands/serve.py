"""`routerlab serve`: a served peer, burn-remote's server: one process, one backend profile, its
devices, listening on a WebSocket address (docs/remote.md).

    routerlab serve [--device cpu:0 --device cpu:1] [--profile flex] [--port 3001]
    routerlab serve --host 0.0.0.0 ...      any interface (a warning: there is no authentication)
    routerlab serve --local 2               two peers on loopback, for a lesson; Ctrl-C stops both
    routerlab serve --faults ...            clients may inject faults (--local peers always may)

The serving is `routerlab.core.serving.serving`; this module parses options and prints.
"""

from typing import Annotated

import typer

LOOPBACK = ("127.0.0.1", "localhost", "::1")
OPEN_WARNING = ("warning: serving on {host} with no authentication: anyone who can reach this "
                "port can run tensors on this machine; use it only on a trusted network or "
                "behind an SSH tunnel (docs/remote.md)")


def register(app: typer.Typer) -> None:
    app.command(help="Serve devices to RouterLab clients over WebSocket (a burn-remote peer).")(
        serve)


def serve(
    device: Annotated[list[str] | None, typer.Option(
        "--device", help="A device to serve, e.g. cpu:0 or cuda:0; repeat for more "
                         "(default: cpu:0 and cpu:1).")] = None,
    profile: Annotated[str | None, typer.Option(
        "--profile", help="Backend profile of every device given without @profile: ndarray, "
                          "flex or cubecl (one backend per server).")] = None,
    host: Annotated[str, typer.Option(
        "--host", help="Interface to listen on; anything but loopback is reachable from the "
                       "network, without authentication.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535,
                                      help="Port (0: a free one, printed).")] = 0,
    local: Annotated[int | None, typer.Option(
        "--local", min=1, max=16, help="Start this many peers on loopback instead, each its own "
                                       "process on a free port; Ctrl-C stops them all.")] = None,
    faults: Annotated[bool, typer.Option(
        "--faults", help="Let clients inject faults (kill, drop, delay, oom, restart; "
                         "docs/faults.md). Peers started with --local always do.")] = False,
) -> None:
    from ...core.serving import run_peer, serve_local

    devices = [d if "@" in d or profile is None else f"{d}@{profile}"
               for d in (device or ["cpu:0", "cpu:1"])]
    if local is not None:
        serve_local(local, devices, announce=_say)
        return
    if host not in LOOPBACK:
        typer.echo(OPEN_WARNING.format(host=host), err=True)
    run_peer(devices, host, port, announce=_say, faults=faults)


def _say(line: str) -> None:
    typer.echo(line)
