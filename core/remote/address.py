"""Naming served peers: `peer2=ws://127.0.0.1:3001` on the command line, `[peers]` in a scenario,
`Runtime(peers={"peer2": "ws://127.0.0.1:3001"})` in Python; each checked the same way here."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..base.devices import LOCAL_PEER, PEER_NAME
from ..base.errors import DeviceError
from ..base.safe_io import shorten

PEER_NAME_LIMIT = 64
"""Characters of a peer name at most: it is printed in every table and error that names it."""
_NAME = re.compile(rf"^{PEER_NAME}$")
_ADDRESS = re.compile(r"^ws://(?P<host>[\w.-]+|\[[0-9A-Fa-f:.]+\]):(?P<port>\d{1,5})/?$")


def check_address(address: object) -> str:
    """`ws://HOST:PORT` (no path: the peer's routes are `/session` and `/data`), without a
    trailing slash."""
    match = _ADDRESS.match(address) if isinstance(address, str) else None
    if match is None or not 0 < int(match["port"]) < 65536:
        raise DeviceError(f"a peer address is ws://HOST:PORT, e.g. ws://127.0.0.1:3001; got "
                          f"{shorten(str(address), 60)!r}")
    return str(address).rstrip("/")


def check_peers(peers: Mapping[str, object]) -> dict[str, str]:
    """Every name a peer name (not `local`, the in-process one), every address checked."""
    checked = {}
    for name, address in peers.items():
        if not isinstance(name, str) or not _NAME.match(name) or name == LOCAL_PEER \
                or len(name) > PEER_NAME_LIMIT:
            raise DeviceError(f"peer name {shorten(str(name), 40)!r}: a letter, then letters, "
                              f"digits, '_', '.' or '-', at most {PEER_NAME_LIMIT} characters, "
                              f"and not {LOCAL_PEER!r} (the in-process peer)")
        checked[name] = check_address(address)
    return checked


def parse_peers(specs: Iterable[str]) -> dict[str, str]:
    """`["peer2=ws://127.0.0.1:3001", ...]` (the CLI's `--peer`) as a checked mapping."""
    peers: dict[str, str] = {}
    for spec in specs:
        name, equals, address = spec.partition("=")
        if not equals:
            raise DeviceError(f"--peer takes NAME=ws://HOST:PORT, e.g. "
                              f"peer2=ws://127.0.0.1:3001; got {spec!r}")
        if name.strip() in peers:
            raise DeviceError(f"peer {name.strip()!r} is given twice")
        peers[name.strip()] = address.strip()
    return check_peers(peers)
