"""Running served peers: one in this process (`run_peer`, what `routerlab serve` does), or N on
loopback, each its own process (`LocalPeers`, what `routerlab serve --local N` and the tests do).

A peer stops on SIGINT or SIGTERM (as burn-remote's server stops on `os_shutdown_signal`,
`crates/burn-remote/src/transport/websocket/server.rs:66`) within `STOP_S`, under any load: it
closes its connections without waiting for a step in progress, and if anything still holds it a
watchdog ends the process at `STOP_S`. It also stops when its parent process dies, so a lesson
never leaves a server behind.

`LocalPeers` binds every peer's socket itself (port 0: the operating system picks, nothing races
for a free port) and hands each child its listening socket, so every peer knows its siblings'
addresses from the start: those are the peers it may download from (`--peer-allow`, no SSRF).
They share one token (`ROUTERLAB_TOKEN`, or a fresh one), passed in the environment, never on the
command line, and remembered in this process for their addresses (`remote.auth`).
"""

from __future__ import annotations

import asyncio
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence

from ..base.devices import parse_device
from ..base.errors import RouterLabError
from ..remote.auth import TOKEN_ENV, forget, new_token, remember, serve_with, token_from_env
from .admit import CLIENT_SHARE_BYTES
from .host import PeerHost, check_serving

READY = "routerlab peer listening on"
"""The first line a peer prints, followed by its address (`LocalPeers` reads it)."""
PARENT_POLL_S = 0.5
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0
STOP_S = 1.2
"""The longest a peer takes to stop once signalled (the watchdog's bound)."""
_ADDRESS = re.compile(r"ws://\S+")


def run_peer(devices: Sequence[str], host: str = "127.0.0.1", port: int = 0,
             announce: Callable[[str], None] = print, faults: bool = False, *,
             token: str | None = None, origins: Iterable[str] = (), allow: Iterable[str] = (),
             client_memory: int = CLIENT_SHARE_BYTES, sock: socket.socket | None = None,
             say: Callable[[str], None] | None = None) -> None:
    """Serve `devices` until told to stop or until the parent process dies; `faults` lets
    clients inject faults (docs/faults.md: a lesson's peers take them, a shared server not).
    The token is `token`, else `ROUTERLAB_TOKEN`, else a fresh one, announced with the address."""
    given = token or token_from_env()
    token = given or new_token()
    serve_with(token)  # presented to the peers this one downloads from
    peer = PeerHost([parse_device(d) for d in devices], host, port, faults, token=token,
                    origins=origins, allow=allow, client_memory=client_memory, say=say)

    def ready(p: PeerHost) -> None:
        announce(f"{READY} {p.describe()}")
        announce(f"token: from {TOKEN_ENV}" if given else
                 f"token: {token}  (clients: export {TOKEN_ENV}={token})")

    watchdog: list[threading.Timer] = []
    try:
        asyncio.run(_serve(peer, ready, sock, watchdog))
    except OSError as error:  # the address is taken, or not this machine's
        why = os.strerror(error.errno).lower() if error.errno else str(error)
        raise RouterLabError(f"cannot listen on {host}:{port}: {why}") from None
    finally:
        for timer in watchdog:
            timer.cancel()
    if watchdog:  # stopped by a signal: end the process here, not in a slow interpreter
        _exit_now()  # shutdown (tearing down a peer's tensors and threads can take seconds)


async def _serve(peer: PeerHost, ready: Callable[[PeerHost], None], sock: socket.socket | None,
                 watchdog: list[threading.Timer]) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def stop_now() -> None:
        if not watchdog:  # the first signal: stop, and make sure of it
            watchdog.append(threading.Timer(STOP_S, _exit_now))
            watchdog[0].daemon = True
            watchdog[0].start()
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):  # the loop's wakeup fd: handled at once,
        loop.add_signal_handler(signum, stop_now)   # whichever thread the signal lands on
    watcher = asyncio.create_task(_watch_parent(os.getppid(), stop))
    try:
        await peer.run(stop, ready, sock)
    finally:
        watcher.cancel()


def _exit_now() -> None:
    """End the process now, its output flushed: after a signal, once the peer has closed its
    connections, or from the watchdog if something still holds it `STOP_S` after the signal (a
    step of a slow client, a backlog)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


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

    def __init__(self, count: int, devices: Sequence[str] = ("cpu:0", "cpu:1"), *,
                 token: str | None = None, origins: Sequence[str] = (),
                 client_memory: int | None = None) -> None:
        if not 1 <= count <= 16:
            raise RouterLabError(f"--local takes 1 to 16 peers, got {count}")
        check_serving([parse_device(d) for d in devices], "127.0.0.1",
                      client_memory or CLIENT_SHARE_BYTES)  # in this process, said once
        self.count, self.devices = count, list(devices)
        self.processes: list[subprocess.Popen[str]] = []
        self.addresses: dict[str, str] = {}
        self.given = token or token_from_env()
        self.token = self.given or new_token()
        """The peers' token: `token`, else `ROUTERLAB_TOKEN`, else a fresh one."""
        self.options = [*(f"--allow-origin={o}" for o in origins),
                        *([f"--client-memory={client_memory}"] if client_memory else [])]

    def start(self) -> dict[str, str]:
        """Start every peer and wait (bounded) until each announces its address."""
        socks = [socket.create_server(("127.0.0.1", 0)) for _ in range(self.count)]
        addresses = [f"ws://127.0.0.1:{s.getsockname()[1]}" for s in socks]
        env = {**os.environ, TOKEN_ENV: self.token}
        try:
            for sock in socks:  # all start at once; then each is waited for
                self.processes.append(subprocess.Popen(
                    [sys.executable, "-m", "routerlab.core.serving", f"--fd={sock.fileno()}",
                     *(f"--peer-allow={a}" for a in addresses), *self.options, "--",
                     *self.devices],
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, env=env,
                    pass_fds=(sock.fileno(),)))
            for n, process in enumerate(self.processes, start=1):
                self.addresses[f"peer{n}"] = _announced(process)
        except BaseException:
            self.stop()
            raise
        finally:
            for sock in socks:
                sock.close()
        remember(list(self.addresses.values()), self.token)
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
        forget(list(self.addresses.values()))

    def __enter__(self) -> LocalPeers:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_local(count: int, devices: Sequence[str], announce: Callable[[str], None] = print,
                warn: Callable[[str], None] | None = None, *, origins: Sequence[str] = (),
                client_memory: int | None = None) -> int:
    """`routerlab serve --local N`: start N peers, say where they are and their token, and
    stop them all on Ctrl-C or SIGTERM. A peer that dies is said on stderr (`warn`) and the
    others keep serving (docs/faults.md); when none is left, this returns 1 (else 0)."""
    warn = warn or (lambda line: print(line, file=sys.stderr, flush=True))
    stop = threading.Event()
    handled = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.signal(signum, lambda *_: stop.set()) for signum in handled}
    try:
        with LocalPeers(count, devices, origins=origins, client_memory=client_memory) as peers:
            named = list(zip(peers.addresses.items(), peers.processes, strict=True))
            for (name, address), process in named:
                announce(f"{name}: {address} ({', '.join(devices)}; pid {process.pid})")
            announce(f"token: from {TOKEN_ENV}" if peers.given else
                     f"token: {peers.token}  (in another terminal: export "
                     f"{TOKEN_ENV}={peers.token})")
            flags = " ".join(f"--peer {n}={a}" for n, a in peers.addresses.items())
            announce(f"use them with: {flags}")
            announce("stop with Ctrl-C")
            alive = {name for (name, _), _ in named}
            while alive and not stop.wait(PARENT_POLL_S):  # until told, or none is left
                for (name, _), process in named:
                    if name in alive and process.poll() is not None:
                        alive.discard(name)
                        rest = ", ".join(sorted(alive))
                        warn(f"{name} (pid {process.pid}) exited with status "
                             f"{process.returncode}; "
                             + (f"{rest} keep serving" if alive else "no peer is left"))
            return 0 if alive else 1
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
