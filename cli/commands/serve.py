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
`routerlab.core.serving.peers`; this module parses options and prints.
"""

import ipaddress
import re
from typing import Annotated

import typer

from .. import options

OPEN_WARNING = ("warning: serving on {host} without encryption: the token and every tensor "
                "cross the network in clear; use it only on a trusted network or behind an SSH "
                "tunnel (docs/remote.md)")
MAX_CLIENT_MEMORY_MIB = 1 << 20
"""`--client-memory`'s largest value: 1 TiB (the peer checks `MAX_CLIENT_SHARE_BYTES` too)."""


def register(app: typer.Typer) -> None:
    app.command(help="Serve devices to RouterLab clients over WebSocket (a burn-remote peer). "
                     "Clients send the token from ROUTERLAB_TOKEN.")(serve)


def _one_host(host: str) -> str:
    """`--host` names one interface: an empty one would listen on all of them (a usage
    error, exit 2, before anything is started)."""
    if not host.strip():
        raise typer.BadParameter("an empty host would listen on every interface: give one "
                                 "address (127.0.0.1, or 0.0.0.0 for every interface on purpose)")
    return host


_ORIGIN = re.compile(r"^https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?/?$")


def _origins(values: list[str] | None) -> list[str] | None:
    """`--allow-origin` takes web origins as a browser sends them (`scheme://host[:port]`): an
    empty one or `*` matches no Origin header the gate compares, so the teacher who typed it
    would believe pages allowed that are refused (or, for `*`, every page on the web allowed):
    a usage error, exit 2."""
    from ...core.base.safe_io import shorten

    for value in values or []:
        if value.strip() == "*":
            raise typer.BadParameter("'*' would let every web page connect; name each origin "
                                     "(e.g. http://localhost:8888)")
        if not _ORIGIN.match(value) or len(value) > 256:
            raise typer.BadParameter(f"{shorten(value, 60)!r} is not a web origin; give "
                                     "scheme://host[:port], e.g. http://localhost:8888")
    return values


DeviceOpt = Annotated[list[str] | None, typer.Option(
    "--device", help="A device to serve, e.g. cpu:0 or cuda:0; repeat for more "
                     "(default: cpu:0 and cpu:1).")]

ProfileOpt = Annotated[str | None, typer.Option(
    "--profile", callback=options.PROFILE,
    help="Backend profile of every device given without @profile: ndarray, flex or cubecl "
         "(one backend per server).")]

HostOpt = Annotated[str, typer.Option(
    "--host", callback=_one_host,
    help="Interface to listen on; anything but loopback is reachable from the network, "
         "without encryption.")]

PortOpt = Annotated[int, typer.Option("--port", min=0, max=65535,
                                      help="Port (0: a free one, printed).")]

LocalOpt = Annotated[int | None, typer.Option(
    "--local", min=1, max=16, help="Start this many peers on loopback instead, each its own "
                                   "process on a free port; Ctrl-C stops them all.")]

FaultsOpt = Annotated[bool, typer.Option(
    "--faults", help="Let clients inject faults (kill, drop, delay, oom, restart; "
                     "docs/faults.md). Peers started with --local always do.")]

PeerAllowOpt = Annotated[list[str] | None, typer.Option(
    "--peer-allow", callback=options.ADDRESS,
    help="A peer (ws://HOST:PORT) this one may download tensors from; repeat for more. "
         "Downloads from any other are refused before connecting.")]

AllowOriginOpt = Annotated[list[str] | None, typer.Option(
    "--allow-origin", callback=_origins,
    help="A web origin (e.g. http://localhost:8888) whose pages may "
                           "connect; upgrades with any other Origin header are refused. "
                           "Repeat for more.")]

ClientMemoryOpt = Annotated[int | None, typer.Option(
    "--client-memory", min=1, max=MAX_CLIENT_MEMORY_MIB,
    help="MiB one client's tensors may hold on a peer (default 4096, at most 1 TiB).")
]


def serve(
    device: DeviceOpt = None, profile: ProfileOpt = None, host: HostOpt = "127.0.0.1",
    port: PortOpt = 0, local: LocalOpt = None, faults: FaultsOpt = False,
    peer_allow: PeerAllowOpt = None, allow_origin: AllowOriginOpt = None,
    client_memory: ClientMemoryOpt = None,
) -> None:
    from ...core.remote import check_address
    from ...core.serving import CLIENT_SHARE_BYTES, run_peer, serve_local

    devices = [d if "@" in d or profile is None else f"{d}@{profile}"
               for d in (device or ["cpu:0", "cpu:1"])]
    share = None if client_memory is None else client_memory << 20
    origins = allow_origin or []
    if local is not None and port:
        raise typer.BadParameter("--local starts each peer on a free port of its own; leave out "
                                 "--port (it is for one peer)", param_hint="'--port'")
    if local is not None:
        if serve_local(local, devices, announce=_say, warn=_warn, origins=origins,
                       client_memory=share):
            raise typer.Exit(1)
        return
    warning = open_warning(host)
    if warning:
        _warn(warning)
    allow = [check_address(a) for a in peer_allow or []]
    run_peer(devices, host, port, announce=_say, faults=faults, origins=origins, allow=allow,
             say=_warn, client_memory=CLIENT_SHARE_BYTES if share is None else share)


def open_warning(host: str) -> str | None:
    """The warning said before a peer listens on `host`, None for loopback (localhost,
    127.0.0.0/8, ::1). A host name other than localhost may resolve to any interface: warned."""
    if host == "localhost":
        return None
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        pass
    return OPEN_WARNING.format(host=host)


def _say(line: str) -> None:
    typer.echo(line)


def _warn(line: str) -> None:
    typer.echo(line, err=True)
