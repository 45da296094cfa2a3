"""Every registry and transfer event, recorded as plain tuples and read back as `TraceEvent`s.

The core only records; the CLI and notebooks render `Trace.view()` / `explain(id)`. Recording sits
on the handle registry's hot path, so an event is one `list.append` of a short tuple
`(kind, device, tensor_id, status, nbytes, detail)`; step numbers are kept as a separate list of
boundaries (step N starts at event `_starts[N]`) and attached only when the trace is read.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import NamedTuple, TypeAlias

from routerlab.core.view import TableView, Viewable

Event: TypeAlias = tuple[str, str, int | None, str | None, int, str]
"""One recorded event: `(kind, device, tensor_id, status, nbytes, detail)`, as `TraceEvent`
holds them after its step number."""


class TraceEvent(NamedTuple):
    """One thing that happened. `kind` is one of: register, get, remove, drop, op, read, expose,
    take, wait, publish, download, copy, bridge, note, failed, panic."""

    step: int
    kind: str
    device: str
    tensor_id: int | None = None
    status: str | None = None
    nbytes: int = 0
    detail: str = ""

    def to_dict(self) -> dict[str, object]:
        return self._asdict()


class Trace(Viewable):
    """An append-only event log with numbered steps."""

    __slots__ = ("events", "_starts")

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._starts: list[int] = [0]
        """The index of the first event of each step: step N starts at `_starts[N]`."""

    @property
    def step(self) -> int:
        return len(self._starts) - 1

    def begin_step(self) -> int:
        """Start the next step; events recorded from now on carry its number."""
        self._starts.append(len(self.events))
        return self.step

    def record(self, kind: str, device: str, tensor_id: int | None = None, status: object = None,
               nbytes: int = 0, detail: str = "") -> None:
        """Store plain values only (see the module docstring of handles.py for why)."""
        self.events.append((kind, device, None if tensor_id is None else int(tensor_id),
                            None if status is None else str(status), nbytes, detail))

    def truncate(self, length: int) -> None:
        """Forget events of a rolled-back operation (the registries forget them too)."""
        del self.events[length:]

    def read(self, start: int = 0) -> list[TraceEvent]:
        """Events from index `start` on, with step numbers and plain-text statuses."""
        return [self._event(index) for index in range(start, len(self.events))]

    def explain(self, tensor_id: int) -> list[TraceEvent]:
        """One tensor's history, in order (only its events are given step numbers)."""
        wanted = int(tensor_id)
        return [self._event(i) for i, event in enumerate(self.events) if event[2] == wanted]

    def _event(self, index: int) -> TraceEvent:
        """The event at `index`, with the number of the step it was recorded in."""
        return TraceEvent(bisect.bisect_right(self._starts, index) - 1, *self.events[index])

    def view(self, events: Iterable[TraceEvent] | None = None, title: str = "Trace") -> TableView:
        rows = [[e.step, e.kind, e.device, e.tensor_id, e.status, e.nbytes or None, e.detail]
                for e in (self.read() if events is None else events)]
        styles = {i: _STYLE[r[1]] for i, r in enumerate(rows) if r[1] in _STYLE}
        return TableView(title, ["step", "event", "device", "tensor", "status", "bytes", "detail"],
                         rows, styles=styles)

    def __len__(self) -> int:
        return len(self.events)


_STYLE = {"register": "added", "remove": "removed", "drop": "removed", "failed": "error",
          "panic": "error", "note": "muted"}
