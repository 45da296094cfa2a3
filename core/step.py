"""`Step`: one step of a runtime, all or nothing, the one protocol every step follows.

`with rt.step(what):` (`Step(rt, what)`) numbers the step in the trace and opens the journal;
leaving without an error runs the sessions, commits the journal and settles the step on the peers
it touched; any error undoes everything the step did (registries, rendezvous maps, client counts,
devices it created, its trace events), records why, and is raised again. The readable path's
steps (`Runtime.atomic`) and the fast path's (`core/fastpath.py`) both run inside it: the fast
path runs its tasks in the step's body and says so (`FastStep`), so the step does not run the
scheduler, which would find every queue empty. A step entered while another is open joins
it: the open one commits or undoes both.

Burn has no such step: a failed op leaves what it did behind (docs/burn.md). The journal is
RouterLab's, so that a lesson can show each step's effect alone and a failure never corrupts the
registries (core/router/handles.py).
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

from .base.trace import Detail

if TYPE_CHECKING:
    from .runtime import Runtime


class Step:
    """One step of `rt` (see the module): a context manager, used once."""

    __slots__ = ("_rt", "_what", "_mark")

    scheduled = True
    """The step's tasks wait in the sessions' queues until it ends, when the scheduler runs
    them and the step is settled on the peers it touched."""

    def __init__(self, rt: Runtime, what: str | Detail) -> None:
        """`what` names the step in the line a failure records."""
        self._rt, self._what = rt, what

    def __enter__(self) -> None:
        rt = self._rt
        if rt.journal.active:
            self._mark = -1  # joins the open step
            return
        self._mark = rt.trace.open_step()
        rt.journal.begin()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._mark < 0:
            return  # joined: the open step decides
        rt = self._rt
        if error is not None:
            self._undo(error)
            return  # the `with` raises it again
        if self.scheduled:
            try:
                rt.server.run()
            except BaseException as failure:
                self._undo(failure)
                raise
        rt.journal.commit()
        if self.scheduled:
            rt.server.settle(True)

    def _undo(self, error: BaseException) -> None:
        """Undo the step (registries, rendezvous maps, client counts, its trace events) and
        record why it failed."""
        rt = self._rt
        rt.journal.rollback()
        rt.server.clear_queues()
        for session in rt.server.sessions.values():
            session.free_unwound()
        rt.trace.truncate(self._mark)
        rt.server.settle(False)
        device = getattr(error, "session", None) or "client"
        rt.trace.record("failed", device, None, None, 0, f"{self._what}: {error}")


class FastStep(Step):
    """A step whose body runs its tasks itself, at once, on idle in-process sessions (the fast
    path, `core/fastpath.py`): it ends without a scheduler pass, which would find every queue
    empty, and with nothing to settle on another process."""

    __slots__ = ()

    scheduled = False
