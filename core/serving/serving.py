"""Running served peers: one in this process (`run_peer`, what `routerlab serve` does), or N on
loopback, each its own process (`LocalPeers`, what `routerlab serve --local N` and the tests do).

A peer stops cleanly on SIGINT or SIGTERM (as burn-remote's server stops on `os_shutdown_signal`,
`crates/burn-remote/src/transport/websocket/server.rs:66`) and when its parent process dies, so a
lesson never leaves a server behind. Ports are chosen by the operating system (port 0) and
announced on the first line of the peer's output, so nothing races for a free port.
"""

from __future__ import annotations

import asyncio
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence

from ..devices import parse_device
from ..errors import RouterLabError
from .host import PeerHost

READY = "routerlab peer listening on"
"""The first line a peer prints, followed by its address (`LocalPeers` reads it)."""
PARENT_POLL_S = 0.5
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0
_ADDRESS = re.compile(r"ws://\S+")


def run_peer(devices: Sequence[str], host: str = "127.0.0.1", port: int = 0,
             announce: Callable[[str], None] = print, faults: bool = False) -> None:
    """Serve `devices` until told to stop or until the parent process dies; `faults` lets
    clients inject faults (docs/faults.md: a lesson's peers take them, a shared server not)."""
    peer = PeerHost([parse_device(d) for d in devices], host, port, faults)
    try:
        asyncio.run(_serve(peer, announce))
    except OSError as error:  # the address is taken, or not this machine's
        why = os.strerror(error.errno).lower() if error.errno else str(error)
        raise RouterLabError(f"cannot listen on {host}:{port}: {why}") from None


async def _serve(peer: PeerHost, announce: Callable[[str], None]) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    watcher = asyncio.create_task(_watch_parent(os.getppid(), stop))
    try:
        await peer.run(stop, lambda p: announce(f"{READY} {p.describe()}"))
    finally:
        watcher.cancel()


async def _watch_parent(parent: int, stop: asyncio.Event) -> None:
    """Stop when the parent goes away (the process is re-parented)."""
    while not stop.is_set():
        if os.getppid() != parent:
            stop.set()
        await asyncio.sleep(PARENT_POLL_S)


class LocalPeers:
    """`count` peers on loopback, `peer1` … `peerN`, each serving `devices` in its own process.

        with LocalPeers(2) as peers:
            rt = Runtime(peers=peers.addresses)
    """

    def __init__(self, count: int, devices: Sequence[str] = ("cpu:0", "cpu:1")) -> None:
        if not 1 <= count <= 16:
            raise RouterLabError(f"--local takes 1 to 16 peers, got {count}")
        self.count, self.devices = count, list(devices)
        self.processes: list[subprocess.Popen[str]] = []
        self.addresses: dict[str, str] = {}

    def start(self) -> dict[str, str]:
        """Start every peer and wait (bounded) until each announces its address."""
        try:
            for _ in range(self.count):  # all start at once; then each is waited for
                self.processes.append(subprocess.Popen(
                    [sys.executable, "-m", "routerlab.core.serving", *self.devices],
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True))
            for n, process in enumerate(self.processes, start=1):
                self.addresses[f"peer{n}"] = _announced(process)
        except BaseException:
            self.stop()
            raise
        return dict(self.addresses)

    def stop(self) -> None:
        """SIGTERM every peer, wait for it, kill one that does not stop: no orphan is left."""
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()

    def __enter__(self) -> LocalPeers:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_local(count: int, devices: Sequence[str],
                announce: Callable[[str], None] = print) -> None:
    """`routerlab serve --local N`: start N peers, say where they are, and stop them all on
    Ctrl-C or SIGTERM (or when one of them exits)."""
    stop = threading.Event()
    handled = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.signal(signum, lambda *_: stop.set()) for signum in handled}
    try:
        with LocalPeers(count, devices) as peers:
            for (name, address), process in zip(peers.addresses.items(), peers.processes,
                                                strict=True):
                announce(f"{name}: {address} ({', '.join(devices)}; pid {process.pid})")
            flags = " ".join(f"--peer {n}={a}" for n, a in peers.addresses.items())
            announce(f"use them with: {flags}")
            announce("stop with Ctrl-C")
            while not stop.wait(PARENT_POLL_S):  # until told, or until a peer ends
                if any(p.poll() is not None for p in peers.processes):
                    break
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _announced(process: subprocess.Popen[str]) -> str:
    """The address on the peer's first line, read within `START_TIMEOUT_S`."""
    assert process.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], deadline - time.monotonic())
        if not ready:
            break
        line = process.stdout.readline()
        if not line:
            break
        found = _ADDRESS.search(line) if line.startswith(READY) else None
        if found:
            return found.group(0)
    raise RouterLabError(f"a local peer (pid {process.pid}) did not start within "
                         f"{START_TIMEOUT_S:g} s (exit status {process.poll()})")
