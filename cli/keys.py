"""One key at a time from the terminal, for `exercises watch`: the terminal in cbreak mode (each
key arrives as it is pressed, unechoed, Ctrl-C still interrupts) while a thread puts the keys on
a queue; the terminal is put back as it was when the block ends, whatever ends it."""

from __future__ import annotations

import contextlib
import os
import queue
import select
import sys
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def keys_from_terminal(keys: queue.Queue[str], stop: threading.Event) -> Iterator[bool]:
    """Feed `keys` until `stop`; yields whether keys can be read at all (a terminal on
    stdin, POSIX): elsewhere nothing is read and the watcher goes on without keys."""
    if os.name != "posix" or not sys.stdin.isatty():
        yield False
        return
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)

    def read() -> None:
        while not stop.is_set():
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                key = os.read(fd, 1).decode("utf-8", "replace")
                if not key:  # the terminal closed
                    return
                keys.put(key)

    tty.setcbreak(fd)
    reader = threading.Thread(target=read, name="watch-keys", daemon=True)
    reader.start()
    try:
        yield True
    finally:
        stop.set()
        reader.join(timeout=1)
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
