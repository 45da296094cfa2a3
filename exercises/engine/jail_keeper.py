"""One grading jail per worker thread, kept across the students that thread grades.

Starting a jail (its process 1 imports numpy, the model and every check module) cost about
0.75 s of CPU a student, a quarter of what grading a whole student costs. A class regrade
(`routerlab.exercises.teacher.classroom.LocalExecutor`) therefore keeps each worker's jail from
one student to the next, which is safe because of what the jail already does after *every*
exercise, the student's or not (`routerlab.exercises.engine.jailhost`): the fork that ran the
student's code has exited, every other process in the jail is killed and reaped, the private
/tmp is emptied and checked empty, and a jail where anything stays behind, or an exercise that
timed out, is killed whole and the next exercise gets a fresh one. Student code never runs in
process 1 (it only forks), each fork gets fresh descriptors (the request on fd 0, the output
pipes it replaces), and the self-test (`jail.unavailable`), the unprivileged uid under a root
teacher and the read-only /proc controls are the jail's, whoever it grades. So what separates
two students in one kept jail is what already separated two exercises of one student.

A jail that could not grade (`Jail.broken`: it did not start, or ended before an exercise
began) is closed and replaced before the next student; `close` ends every jail kept.

`teacher lint` keeps jails the same way, per worker thread across exercises (`catalog_jails`):
each exercise's starter, solution, wrong submissions and mutants were graded in a jail started
for them, about 200 jails for the catalog, and are now graded in forks of a few.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator

from ..catalog import Catalog
from .jail import Jail
from .jail_image import Image


class JailKeeper:
    """The jails of one class run: `take` gives the calling thread its own, `close` ends all."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._jails: list[Jail] = []
        self._lock = threading.Lock()

    def __enter__(self) -> JailKeeper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def take(self, image: Image, checks: list[str]) -> Jail:
        """This thread's jail for a student graded with `image` and `checks`: the one it graded
        its last student in, unless that one is broken or was made for another catalog."""
        jail: Jail | None = getattr(self._local, "jail", None)
        if jail is not None and (jail.broken is not None or jail.image.targets != image.targets
                                 or jail.checks != checks):
            jail.close()
            with self._lock:
                self._jails.remove(jail)
            jail = None
        if jail is None:
            jail = Jail(image, checks)
            self._local.jail = jail
            with self._lock:
                self._jails.append(jail)
        return jail

    def close(self) -> None:
        """Kill every jail kept (each one's processes and cgroups gone when this returns)."""
        with self._lock:
            jails, self._jails = self._jails, []
        for jail in jails:
            jail.close()


@contextlib.contextmanager
def catalog_jails(catalog: Catalog) -> Iterator[Callable[[], Jail | None]]:
    """For the block: a function giving the calling thread its kept jail for `catalog` (every
    check module warm); it gives None where no jail runs here (`ROUTERLAB_NO_JAIL`, or
    `jail.unavailable`), and the caller uses the sandbox."""
    from .jail import unavailable
    from .jail_image import build_image, graded_targets

    if os.environ.get("ROUTERLAB_NO_JAIL") or unavailable() is not None:
        yield lambda: None
        return
    image = build_image(frozenset(graded_targets(catalog)))
    checks = sorted({e.checks for e in catalog})
    with JailKeeper() as keeper:
        yield lambda: keeper.take(image, checks)
