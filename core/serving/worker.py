"""One OS thread per client of a served peer, as Burn gives each session its own worker thread
(`crates/burn-remote/src/server/worker.rs:19-33`).

A client's `Sync`, `Rollback` and close run on its own thread, one after the other, so a client
whose step waits (a slow source, a long op) holds its own thread and nobody else's; the peer takes
at most `gate.MAX_SESSIONS` clients, so it runs at most that many such threads. (`asyncio.to_thread`
shared one pool of `cpu_count + 4` threads: six slow clients stalled every other one.) The
threads are daemons: a peer told to stop never waits for a step in progress (`serving`).
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
_Job = tuple[Callable[..., Any], tuple[Any, ...], "asyncio.Future[Any]"]


class Worker:
    """A client's thread: runs the calls handed to it in order (see the module)."""

    def __init__(self, name: str) -> None:
        self._loop = asyncio.get_running_loop()
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    async def call(self, function: Callable[..., T], *args: Any) -> T:
        """Run `function(*args)` on this client's thread; its result or its exception here."""
        done: asyncio.Future[T] = self._loop.create_future()
        self._jobs.put((function, args, done))
        return await done

    def stop(self) -> None:
        """End the thread once the calls already handed to it have run."""
        self._jobs.put(None)

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:  # bounded: ends at `stop`
            function, args, done = job
            try:
                result = function(*args)
            except BaseException as error:  # noqa: BLE001 - handed to the awaiting coroutine
                self._settle(done, None, error)
            else:
                self._settle(done, result, None)

    def _settle(self, done: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
        def settle() -> None:
            if done.cancelled():  # the connection went away meanwhile
                return
            if error is not None:
                done.set_exception(error)
            else:
                done.set_result(result)
        try:
            self._loop.call_soon_threadsafe(settle)
        except RuntimeError:  # the loop is closed: the peer is stopping, nobody waits
            pass
