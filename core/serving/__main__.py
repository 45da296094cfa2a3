"""`python -m routerlab.core.serving DEVICE...`: one served peer on a free loopback port, as
`LocalPeers` starts it for a lesson, so it takes faults (`routerlab serve` is the command to
type)."""

import sys

from ..errors import RouterLabError
from .serving import run_peer


def main() -> None:
    try:
        run_peer(sys.argv[1:] or ["cpu:0"], announce=lambda line: print(line, flush=True),
                 faults=True)
    except RouterLabError as error:
        sys.exit(f"error: {error}")


if __name__ == "__main__":  # importing this module (a sandbox preloads every one) runs nothing
    main()
