"""Panics a notebook *expects*: kept and shown the way Rust prints them, not as a traceback.

A `BurnPanic` carries its parts as fields (`message`, Burn's own text; `source`, the Burn file and
line; `session`, the session it ended; `notes`, what the model adds), so the display is composed
from them and never parsed back out of the exception's text.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ..core import BurnPanic, RouterLabError
from .display import Callout

__all__ = ["Caught", "catch_panic"]


@dataclass
class Caught:
    """What `catch_panic` saw: the error (a `BurnPanic` replays Burn's own text), or nothing."""

    error: BaseException | None = None

    @property
    def panicked(self) -> bool:
        return self.error is not None

    @property
    def message(self) -> str:
        return "" if self.error is None else str(self.error)

    @property
    def source(self) -> str | None:
        """The Burn file (and line) that panics; `None` for anything but a `BurnPanic`."""
        return self.error.source if isinstance(self.error, BurnPanic) else None

    def _callout(self) -> Callout:
        error = self.error
        if error is None:
            return Callout("ok", "No panic: the operation went through.")
        if isinstance(error, BurnPanic):  # printed the way Rust does
            # The panic line carries Burn's own text; the model's notes (the session that
            # ended, a target left waiting) follow, apart.
            thread = error.session or "main"
            text = f"thread '{thread}' panicked at {error.source}:\n{error.message}"
            if error.notes:
                text += f"\n\n{error.notes}"
            return Callout("error", f"Burn panics ({type(error).__name__})", text, pre=True)
        return Callout("error", f"{type(error).__name__}", self.message, pre=True)

    def _repr_html_(self) -> str:
        return self._callout()._repr_html_()

    def __repr__(self) -> str:
        return repr(self._callout())


@contextmanager
def catch_panic(*kinds: type[BaseException]) -> Iterator[Caught]:
    """Run a block that is *expected* to panic and keep the panic for display, not a traceback.

    Only RouterLab's own errors are caught by default (`RouterLabError`: every `BurnPanic`, a
    rejected transfer...); anything else is a real bug and propagates.
    """
    caught = Caught()
    catchable: tuple[type[BaseException], ...] = kinds or (RouterLabError,)
    try:
        yield caught
    except catchable as error:
        caught.error = error
