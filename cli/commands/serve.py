"""`routerlab serve`: a served peer, burn-remote's server: one process, one backend profile, its
devices, listening on a WebSocket address (docs/remote.md).

    routerlab serve [--device cpu:0 --device cpu:1] [--profile flex] [--port 3001]
    routerlab serve --host 0.0.0.0 ...      any interface (a warning: the token travels in clear)
    routerlab serve --local 2               two peers on loopback, for a lesson; Ctrl-C stops both
    routerlab serve --faults ...            clients may inject faults (--local peers always may)
    routerlab serve --peer-allow ws://H:P   a peer this one may download from (repeat)
    routerlab serve --allow-origin ORIGIN   a web origin whose pages may connect (repeat)

The token comes from `ROUTERLAB_TOKEN` or is generated and printed with the address; it is never
an option (argv is visible to every user of the machine). The serving is
`routerlab.core.serving.serving`; this module parses options and prints.
"""

from typing import Annotated

import typer

from .. import options

LOOPBACK = ("127.0.0.1", "localhost", "::1")
OPEN_WARNING = ("warning: serving on {host} without encryption: the token and every tensor "
                "cross the network in clear; use it only on a trusted network or behind an SSH "
                "tunnel (docs/remote.md)")


def register(app: typer.Typer) -> None:
    app.command(help="Serve devices to RouterLab clients over WebSocket (a burn-remote peer). "
                     "Clients send the token from ROUTERLAB_TOKEN.")(serve)


def serve(
    device: Annotated[list[str] | None, typer.Option(
        "--device", help="A device to serve, e.g. cpu:0 or cuda:0; repeat for more "
                         "(default: cpu:0 and cpu:1).")] = None,
    profile: Annotated[str | None, typer.Option(
        "--profile", callback=options.PROFILE,
        help="Backend profile of every device given without @profile: ndarray, flex or cubecl "
             "(one backend per server).")] = None,
    host: Annotated[str, typer.Option(
        "--host", help="Interface to listen on; anything but loopback is reachable from the "
                       "network, without encryption.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535,
                                      help="Port (0: a free one, printed).")] = 0,
    local: Annotated[int | None, typer.Option(
        "--local", min=1, max=16, help="Start this many peers on loopback instead, each its own "
                                       "process on a free port; Ctrl-C stops them all.")] = None,
    faults: Annotated[bool, typer.Option(
        "--faults", help="Let clients inject faults (kill, drop, delay, oom, restart; "
                         "docs/faults.md). Peers started with --local always do.")] = False,
    peer_allow: Annotated[list[str] | None, typer.Option(
        "--peer-allow", help="A peer (ws://HOST:PORT) this one may download tensors from; "
                             "repeat for more. Downloads from any other are refused before "
                             "connecting.")] = None,
    allow_origin: Annotated[list[str] | None, typer.Option(
        "--allow-origin", help="A web origin (e.g. http://localhost:8888) whose pages may "
                               "connect; upgrades with any other Origin header are refused. "
                               "Repeat for more.")] = None,
    client_memory: Annotated[int | None, typer.Option(
        "--client-memory", min=1, help="MiB one client's tensors may hold on a peer "
                                       "(default 4096).")] = None,
) -> None:
    from ...core.remote import check_address
    from ...core.serving import CLIENT_SHARE_BYTES, run_peer, serve_local

    devices = [d if "@" in d or profile is None else f"{d}@{profile}"
               for d in (device or ["cpu:0", "cpu:1"])]
    share = None if client_memory is None else client_memory << 20
    origins = allow_origin or []
    if local is not None:
        if serve_local(local, devices, announce=_say, warn=_warn, origins=origins,
                       client_memory=share):
            raise typer.Exit(1)
        return
    if host not in LOOPBACK:
        _warn(OPEN_WARNING.format(host=host))
    allow = [check_address(a) for a in peer_allow or []]
    run_peer(devices, host, port, announce=_say, faults=faults, origins=origins, allow=allow,
             say=_warn, client_memory=CLIENT_SHARE_BYTES if share is None else share)


def _say(line: str) -> None:
    typer.echo(line)


def _warn(line: str) -> None:
    typer.echo(line, err=True)
