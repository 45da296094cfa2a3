"""`python -m routerlab.core.serving [--fd N] [--peer-allow ADDRESS]... [--allow-origin ORIGIN]...
[--client-memory BYTES] -- DEVICE...`: one served peer, as `LocalPeers` starts it for a lesson,
so it takes faults (`routerlab serve` is the command to type). `--fd` is a listening socket
handed over by the parent; the token comes from `ROUTERLAB_TOKEN` (never from argv)."""

import argparse
import socket
import sys

from ..base.errors import RouterLabError
from .admit import CLIENT_SHARE_BYTES
from .peers import run_peer


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m routerlab.core.serving")
    parser.add_argument("--fd", type=int)
    parser.add_argument("--peer-allow", action="append", default=[])
    parser.add_argument("--allow-origin", action="append", default=[])
    parser.add_argument("--client-memory", type=int, default=CLIENT_SHARE_BYTES)
    parser.add_argument("devices", nargs="*")
    args = parser.parse_args()
    sock = None if args.fd is None else socket.socket(fileno=args.fd)
    try:
        run_peer(args.devices or ["cpu:0"], announce=lambda line: print(line, flush=True),
                 faults=True, sock=sock, allow=args.peer_allow, origins=args.allow_origin,
                 client_memory=args.client_memory)
    except RouterLabError as error:
        sys.exit(f"error: {error}")


if __name__ == "__main__":  # importing this module (a sandbox preloads every one) runs nothing
    main()
