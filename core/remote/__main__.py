"""`python -m routerlab.core.remote DEVICE...`: one served peer on a free loopback port, as
`LocalPeers` starts it for a lesson, so it takes faults (`routerlab serve` is the command to
type). Guarded by `__name__`: the exercise harness imports every module of the package."""

import sys

from routerlab.core.errors import RouterLabError
from routerlab.core.remote.serving import run_peer

if __name__ == "__main__":
    try:
        run_peer(sys.argv[1:] or ["cpu:0"], announce=lambda line: print(line, flush=True),
                 faults=True)
    except RouterLabError as error:
        sys.exit(f"error: {error}")
