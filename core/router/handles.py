"""`HandleContainer`: one map from tensor id to backend handle, with one invariant.

The invariant (`crates/burn-ir/src/handle.rs:93-113`): *the status of a use decides whether the
entry survives it*. A ReadOnly get leaves the handle in place (Burn puts a clone back; handing the
same object out is the model of that refcount bump), a ReadWrite get moves it out, so a second
get of that id fails with Burn's "Should have handle for tensor …". Registering overwrites
silently, removing is unconditional, and `free` removes only for ReadWrite.

Burn's `Handle::NotInit` variant is not modelled: since PR #4593 (commit 3c6b710) no method can
insert it, so no code path reaches it. The vestigial `counter` is dropped for the same reason.

Every mutation is appended to the shared `Trace` and, while a `Journal` is open, to its undo log,
so that a failed operation can be rolled back exactly. Both are one `list.append` each. What the
trace gets is the tuple `(kind, label, id, status)`, the readable form written beside each
record, or, for every id a session mints, the same event as one int, `id + code` (trace.py):
building the tuple cost four times the dict operation it describes (docs/performance.md), the
int one addition, and the garbage collector never scans an int (a long trace of tracked objects
would slow every later step down). tests/core/test_trace_log.py proves that the two forms read
back the same over random programs.

Only ids `0 <= id < COMPACT_IDS` have the compact form. `register` and `remove_handle` check
each id; a `get` does not, as it pays for the check on every op input: the id it found is a key,
and every key came in through `register` (or `over`, which checks them all). So a registry that
has ever held another id gives its gets no codes (`None`), and `id + None` raising `TypeError`
is how a get knows to record the tuple.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from ..base.errors import BurnPanic, MissingHandleError
from ..base.trace import LAST_COMPACT_ID, Trace
from ..base.view import TableView, Viewable
from .ir import READ_ONLY, READ_WRITE, TensorId, TensorIr, TensorStatus

_MISSING = object()
UndoEntry = tuple[Any, Any, Any]


class Journal:
    """Undo log for one client-level operation across every container and rendezvous map.

    An entry `(mapping, key, old)` restores `mapping[key] = old` (or removes the key when `old`
    is missing); an entry `(None, fn, args)` calls `fn(*args)`. Rolled back newest first.
    """

    __slots__ = ("entries", "active", "_containers")

    def __init__(self) -> None:
        self.entries: list[UndoEntry] = []
        self.active = False
        self._containers: list[HandleContainer] = []

    def watch(self, container: HandleContainer) -> None:
        self._containers.append(container)
        if self.active:
            container._undo = self.entries

    def unwatch(self, container: HandleContainer) -> None:
        """Stop journaling `container` (its device was forgotten)."""
        self._containers.remove(container)
        container._undo = None

    def begin(self) -> None:
        self.entries = []
        self.active = True
        for container in self._containers:
            container._undo = self.entries

    def commit(self) -> None:
        for container in self._containers:
            container._undo = None
        self.entries = []
        self.active = False

    def rollback(self) -> None:
        for mapping, key, old in reversed(self.entries):
            if mapping is None:
                key(*old)
            elif old is _MISSING:
                mapping.pop(key, None)
            else:
                mapping[key] = old
        self.commit()

    def set(self, mapping: MutableMapping[Any, Any], key: Any, value: Any) -> None:
        self.entries.append((mapping, key, mapping.get(key, _MISSING)))
        mapping[key] = value

    def pop(self, mapping: MutableMapping[Any, Any], key: Any) -> Any:
        value = mapping.pop(key)
        self.entries.append((mapping, key, value))
        return value

    def on_rollback(self, undo: Callable[..., None], *args: Any) -> None:
        self.entries.append((None, undo, args))


class HandleContainer(Viewable):
    """Handles of one interpreter (one device session), keyed by `TensorId` (an int)."""

    __slots__ = ("_handles", "_undo", "_trace", "_events", "_log", "_label", "_held_other_ids",
                 "_registered", "_read_write", "_read_only", "_removed")

    def __init__(self, label: str = "", trace: Trace | None = None) -> None:
        self._handles: dict[int, Any] = {}
        self._undo: list[UndoEntry] | None = None
        self._trace = trace if trace is not None else Trace()
        self._events = self._trace.events
        self._log = self._events.append  # the tuple form, for every other event
        self._held_other_ids = False
        """Whether an id without a compact form was ever a key: then gets record tuples."""
        self._read_write: Any  # an int, or None (module docstring)
        self._read_only: Any
        self.label = label

    @property
    def label(self) -> str:
        """The device its events name; a new one takes effect from the next event (its compact
        codes come with it, trace.py)."""
        return self._label

    @label.setter
    def label(self, label: str) -> None:
        self._label = label
        self._recode()

    def _recode(self) -> None:
        """Take the label's compact codes (module docstring for the gets')."""
        registered, read_write, read_only, removed = self._trace.registry_codes(self._label)
        self._registered, self._removed = registered, removed
        other = self._held_other_ids
        self._read_write, self._read_only = (None, None) if other else (read_write, read_only)

    def _hold_other_ids(self) -> None:
        if not self._held_other_ids:
            self._held_other_ids = True
            self._recode()

    @classmethod
    def over(cls, handles: dict[int, Any], label: str = "") -> HandleContainer:
        """A container over `handles` itself (not a copy): how an exercise runs the model's
        own `get` on a learner's plain dict, or hands a learner's function a registry that
        holds what a device holds."""
        container = cls(label)
        container._handles = handles
        if not all(_compact(id) for id in handles):
            container._hold_other_ids()
        return container

    def register(self, id: int, handle: Any) -> None:
        """`register_handle`: insert, silently overwriting an existing entry (handle.rs:66)."""
        if self._undo is not None:
            self._undo.append((self._handles, id, self._handles.get(id, _MISSING)))
        self._handles[id] = handle
        try:
            if 0 <= id <= LAST_COMPACT_ID:
                self._events.append(id + self._registered)  # the tuple below, as one int
            else:
                self._log(("register", self._label, int(id)))
                self._hold_other_ids()
        except TypeError:  # an id that is no number: the insert is taken back, the id refused
            del self._handles[id]
            raise

    def get(self, id: int, status: TensorStatus) -> Any:
        """`get_handle` (handle.rs:93): ReadOnly leaves the entry, ReadWrite moves it out.

        The hot path of every op: `id` keys the map as given (a `TensorId` is an int), one dict
        operation per call, and the trace gets a plain `int` (a `TensorId` is tracked by the
        garbage collector, a plain int is not)."""
        if status is READ_WRITE:
            try:
                handle = self._handles.pop(id)
            except KeyError:
                raise MissingHandleError(int(id)) from None
            if self._undo is not None:
                self._undo.append((self._handles, id, handle))
            try:
                self._events.append(id + self._read_write)  # the tuple below, as one int
            except TypeError:  # no code (module docstring)
                self._log(("get", self._label, int(id), "ReadWrite"))
            return handle
        try:
            handle = self._handles[id]
        except KeyError:
            raise MissingHandleError(int(id)) from None
        if status is not READ_ONLY:
            raise BurnPanic(f"Cannot get uninitialized tensor {TensorId(id)!r}. Tensor exist but "
                            "with wrong status", "crates/burn-ir/src/handle.rs:106-108")
        try:
            self._events.append(id + self._read_only)  # the tuple below, as one int
        except TypeError:  # no code (module docstring)
            self._log(("get", self._label, int(id), "ReadOnly"))
        return handle

    def get_tensor_handle(self, tensor: TensorIr) -> Any:
        """`get_tensor_handle` (handle.rs:115): the IR's own status decides."""
        return self.get(tensor.id, tensor.status)

    def remove_handle(self, id: int) -> Any | None:
        """Unconditional removal (handle.rs:198); returns the old handle, if any."""
        handle = self._handles.pop(id, None)
        if handle is not None:
            if self._undo is not None:
                self._undo.append((self._handles, id, handle))
            if 0 <= id <= LAST_COMPACT_ID:
                self._events.append(id + self._removed)  # the tuple below, as one int
            else:
                self._log(("remove", self._label, int(id)))
        return handle

    def clear(self) -> None:
        """Drop every handle (not journaled): a worker thread that panics unwinds, and the
        interpreter and its container go with it (`crates/burn-remote/src/server/
        worker.rs:149-181`)."""
        for id in list(self._handles):
            self._log(("remove", self._label, int(id), None, 0, "freed: the worker unwound"))
        self._handles.clear()

    def free(self, tensor: TensorIr) -> None:
        """Remove only for ReadWrite; ReadOnly and NotInit do nothing (handle.rs:203-211)."""
        if tensor.status is READ_WRITE:
            self.remove_handle(tensor.id)

    def has_handle(self, id: int) -> bool:
        return id in self._handles

    def get_handle_ref(self, id: int) -> Any | None:
        """Look without touching the map (handle.rs:76)."""
        return self._handles.get(id)

    def num_handles(self) -> int:
        return len(self._handles)

    def handle_ids(self) -> Iterator[TensorId]:
        return (TensorId(i) for i in self._handles)

    def fork(self) -> HandleContainer:
        """An independent copy sharing the handles (handle.rs:24): registrations in the fork
        never reach the original. The fork records nothing in the trace or the journal."""
        fork = HandleContainer(f"{self.label} (fork)")
        fork._handles = dict(self._handles)
        if self._held_other_ids:
            fork._hold_other_ids()
        return fork

    def view(self, title: str | None = None, caption: str = "") -> TableView:
        """The registry as a table: one row per id, in id order."""
        rows = []
        for id in sorted(self._handles):
            handle = self._handles[id]
            shape = getattr(handle, "shape", None)
            rows.append([int(id), str(getattr(handle, "dtype", "?")),
                         None if shape is None else str(list(shape)),
                         getattr(handle, "nbytes", None)])
        return TableView(title or f"Registry {self.label}", ["id", "dtype", "shape", "bytes"],
                         rows, caption=caption)

    def __repr__(self) -> str:
        return f"HandleContainer {{ handles: {sorted(int(i) for i in self._handles)} }}"


def _compact(id: object) -> bool:
    """Whether `id` has the compact form (trace.py), without failing on what is no number."""
    try:
        return 0 <= id <= LAST_COMPACT_ID  # type: ignore[operator]
    except TypeError:
        return False
