"""Real served peers for the remote tests: two `routerlab serve` processes on loopback, on ports
the operating system picks at run time, shared by every test of this package and stopped after
them; `one_peer` starts a peer of a test's own, to attack it (`OnePeer`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from routerlab.core.remote.auth import forget, remember
from routerlab.core.serving import LocalPeers
from routerlab.core.serving.peers import _announced


@pytest.fixture(scope="package")
def peers() -> Iterator[dict[str, str]]:
    """`{"peer1": "ws://127.0.0.1:…", "peer2": …}`, each serving cpu:0 and cpu:1 (flex)."""
    local = LocalPeers(2)
    try:
        yield local.start()
    finally:
        local.stop()
    assert all(p.returncode is not None for p in local.processes)


TOKEN = "a-test-token-of-the-remote-tests"


class OnePeer:
    """A served peer of a test's own: `python -m routerlab.core.serving` on a loopback port the
    operating system picks, with the test's options, its stderr kept in a file (the peer's side
    of a refusal), its RSS and thread count read from /proc; its token is remembered for its
    address, so `Runtime(peers=...)` presents it."""

    def __init__(self, tmp: Path, *options: str, devices: tuple[str, ...] = ("cpu:0",),
                 token: str = TOKEN) -> None:
        self.token = token
        self.log = tmp / f"peer-{time.monotonic_ns()}.err"
        env = {**os.environ, "ROUTERLAB_TOKEN": token}
        with self.log.open("w") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "routerlab.core.serving", *options, "--", *devices],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, text=True,
                env=env)
        self.address = _announced(self.process)
        remember([self.address], token)

    def stderr(self) -> str:
        return self.log.read_text()

    def status(self, field: str) -> int:
        """A number of /proc/PID/status: `VmRSS` (KiB) or `Threads`."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
        raise AssertionError(f"no {field} in /proc/{self.process.pid}/status")

    def rss(self) -> int:
        """Resident bytes."""
        return self.status("VmRSS") * 1024

    def threads(self) -> int:
        return self.status("Threads")

    def stop(self, signum: int = signal.SIGTERM) -> float:
        """Signal the peer; return the seconds it took to exit (killed past 10 s)."""
        start = time.monotonic()
        if self.process.poll() is None:
            self.process.send_signal(signum)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        took = time.monotonic() - start
        forget([self.address])
        if self.process.stdout is not None:
            self.process.stdout.close()
        return took

    def __enter__(self) -> OnePeer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture
def one_peer(tmp_path: Path) -> Iterator[Callable[..., OnePeer]]:
    """`one_peer(*options)`: a served peer of this test's own (see `OnePeer`), stopped after."""
    started: list[OnePeer] = []

    def start(*options: str, **kwargs: object) -> OnePeer:
        peer = OnePeer(tmp_path, *options, **kwargs)  # type: ignore[arg-type]
        started.append(peer)
        return peer

    yield start
    for peer in started:
        peer.stop()
