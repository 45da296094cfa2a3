"""Every registry and transfer event, recorded as plain values and read back as `TraceEvent`s.

The core only records; the CLI and notebooks render `Trace.view()` / `explain(id)`. Recording sits
on the handle registry's hot path, so an event is one `list.append` of a short tuple
`(kind, device, tensor_id, status, nbytes, detail)`; step numbers are kept as a separate list of
boundaries (step N starts at event `_starts[N]`) and attached only when the trace is read.

The registry's own events (register, get, remove) are the most frequent by far, two per op
input, and building their tuples cost four times the dict operation each one describes
(docs/performance.md, "Registry pairs"). So a registry records one of them as a single int:

    event = tensor_id + code        code = (label_index * 4 + kind) * COMPACT_IDS

where `kind` indexes `REGISTRY_KINDS` and `label_index` the trace's label table, which holds
each registry's label once (`registry_codes`). One addition, no tuple, and an int is an object
the garbage collector never scans. `read` and `explain` expand it to the very `TraceEvent` the
tuple gives: with `labels[1] == "cpu:1"`, `5 + (1 * 4 + 1) * COMPACT_IDS` reads back as
`("get", "cpu:1", 5, "ReadWrite")`. `divmod` undoes it exactly for `0 <= tensor_id <
COMPACT_IDS`; a registry records any other id as the tuple (handles.py).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any, NamedTuple, TypeAlias

from .view import TableView, Viewable

Event: TypeAlias = tuple[Any, ...] | int
"""One recorded event: `(kind, device, tensor_id, status, nbytes, detail)`, as `TraceEvent`
holds them after its step number (with `detail` described by then), or a registry event's
compact int (module docstring). A tuple may leave trailing fields out (`("get", "cpu:0", 7,
"ReadWrite")`): `TraceEvent`'s defaults fill them in when the event is read."""

REGISTRY_KINDS: tuple[tuple[str, str | None], ...] = (
    ("register", None), ("get", "ReadWrite"), ("get", "ReadOnly"), ("remove", None))
"""`(kind, status)` of a compact event, by its `kind` (module docstring)."""

COMPACT_IDS = 1 << 30
"""Ids `0 <= id < COMPACT_IDS` are recorded compactly: a session's id counter would have to mint
a billion tensors to pass it. 2**30 is also where CPython's ints grow a second digit, so the
comparison a registry makes to choose stays on the interpreter's fast path."""

LAST_COMPACT_ID = COMPACT_IDS - 1

MAX_LABELS = 1 << 20
"""Registry labels one trace can hold: every compact event stays below 2**52, so it is exact
even when an id is a numpy int or a float equal to an int (which the registry's dict finds)."""


class Detail:
    """An event's detail, formatted when the event is read (`Detail("{} -> {}", a, b)`): a move
    records several events, and building their text with every move cost more than recording
    them. Its arguments must be immutable values (devices, policies, ints), as the text has to
    read the same later."""

    __slots__ = ("template", "args")

    def __init__(self, template: str, *args: object) -> None:
        self.template = template
        self.args = args

    def describe(self) -> str:
        return self.template.format(*self.args)

    __str__ = describe


class TraceEvent(NamedTuple):
    """One thing that happened. `kind` is one of: register, get, remove, drop, op, read, expose,
    take, wait, publish, download, copy, bridge, note, failed, panic, drain (a device runner ran
    a client's queued closures: why, as the status; core/wire/closures.py), batch (a batch left a
    client: its reason as the status, its data bytes, its tasks; core/wire/queue.py)."""

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
    """An append-only event log with numbered steps, bounded: past `CAP` events the oldest half
    is dropped when the next step begins (never inside one, so a rollback's mark stays valid).

    Indices are absolute: `len(trace)` counts every event ever recorded, so `mark = len(trace)`
    then `trace.read(mark)` works however many events were dropped in between; `dropped` says
    how many were. `explain` sees the events still kept.
    """

    __slots__ = ("events", "_starts", "_first_step", "dropped", "_labels", "_codes")

    CAP = 200_000
    """Events kept at most (a registry's compact ones 40 bytes each, others about 120: some 25 MB
    at most), the last 100,000 to 200,000 of them; docs/performance.md."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        """What was recorded, in order: append tuples (or call `record`); the compact ints are
        the registries' (`registry_codes`), and `read` is how to look."""
        self._starts: list[int] = [0]
        """The absolute index of the first event of each step kept: step `_first_step + k`
        starts at `_starts[k]`."""
        self._first_step = 0
        self.dropped = 0
        """Events dropped from the front so far."""
        self._labels: list[str] = []
        self._codes: dict[str, tuple[int, ...]] = {}

    @property
    def step(self) -> int:
        return self._first_step + len(self._starts) - 1

    def begin_step(self) -> int:
        """Start the next step; events recorded from now on carry its number (returned)."""
        self.open_step()
        return self.step

    def open_step(self) -> int:
        """Start the next step and return where its events begin (`len(self)`): the mark a step
        that fails truncates back to (`core/step.py`). One call, as every step makes it."""
        events = self.events
        if len(events) > self.CAP:
            self._compact()
        mark = self.dropped + len(events)
        self._starts.append(mark)
        return mark

    def _compact(self) -> None:
        """Drop the oldest half, in place: the registries append to this very list."""
        cut = len(self.events) // 2
        del self.events[:cut]
        self.dropped += cut
        first = max(bisect.bisect_right(self._starts, self.dropped) - 1, 0)
        self._first_step += first
        del self._starts[:first]

    def record(self, kind: str, device: str, tensor_id: int | None = None, status: object = None,
               nbytes: int = 0, detail: str | Detail = "") -> None:
        """Store plain values only (see the module docstring of handles.py for why)."""
        self.events.append((kind, device, None if tensor_id is None else int(tensor_id),
                            None if status is None else str(status), nbytes, detail))

    def registry_codes(self, label: str) -> tuple[int, ...]:
        """The codes of `label`'s compact events, one per `REGISTRY_KINDS` entry: where a
        registry would append `(kind, label, id, status)`, it appends `id + codes[kind]`."""
        codes = self._codes.get(label)
        if codes is None:
            if len(self._labels) == MAX_LABELS:
                raise ValueError(f"a trace holds at most {MAX_LABELS:,} registry labels")
            first = len(self._labels) * len(REGISTRY_KINDS)
            self._labels.append(label)
            codes = self._codes[label] = tuple((first + kind) * COMPACT_IDS
                                               for kind in range(len(REGISTRY_KINDS)))
        return codes

    def _expand(self, event: int) -> tuple[str, str, int, str | None]:
        """A compact event as the tuple it stands for. `int` first: a numpy int, or a float that a
        registry's dict took for an int, was added as it came."""
        code, tensor_id = divmod(int(event), COMPACT_IDS)
        label, kind = divmod(code, len(REGISTRY_KINDS))
        kind_name, status = REGISTRY_KINDS[kind]
        return kind_name, self._labels[label], tensor_id, status

    def truncate(self, length: int) -> None:
        """Forget events of a rolled-back operation (the registries forget them too)."""
        del self.events[max(length - self.dropped, 0):]

    def read(self, start: int = 0) -> list[TraceEvent]:
        """Events from absolute index `start` on (those still kept), with step numbers and
        plain-text statuses."""
        return [self._event(i) for i in range(max(start - self.dropped, 0), len(self.events))]

    def explain(self, tensor_id: int) -> list[TraceEvent]:
        """One tensor's history, in order (only its events are given step numbers)."""
        wanted = int(tensor_id)
        return [self._event(i) for i, event in enumerate(self.events)
                if (event[2] if isinstance(event, tuple) else int(event) % COMPACT_IDS) == wanted]

    def _event(self, index: int) -> TraceEvent:
        """The kept event at list position `index`, with the number of its step."""
        step = self._first_step + bisect.bisect_right(self._starts, index + self.dropped) - 1
        event = self.events[index]
        if not isinstance(event, tuple):
            return TraceEvent(step, *self._expand(event))
        if len(event) == 6 and not isinstance(event[5], str):  # an op or a Detail, described now
            event = (*event[:5], event[5].describe())
        return TraceEvent(step, *event)

    def view(self, events: Iterable[TraceEvent] | None = None, title: str = "Trace") -> TableView:
        rows = [[e.step, e.kind, e.device, e.tensor_id, e.status, e.nbytes or None, e.detail]
                for e in (self.read() if events is None else events)]
        styles = {i: _STYLE[r[1]] for i, r in enumerate(rows) if r[1] in _STYLE}
        return TableView(title, ["step", "event", "device", "tensor", "status", "bytes", "detail"],
                         rows, styles=styles)

    def __len__(self) -> int:
        return self.dropped + len(self.events)


_STYLE = {"register": "added", "remove": "removed", "drop": "removed", "failed": "error",
          "panic": "error", "note": "muted", "batch": "muted"}
