"""A class keeps each worker's jail from one student to the next (issue 38 §4,
`routerlab.exercises.engine.jail_keeper`): nothing one student leaves reaches the next.

The first student leaves what a jail could carry over: a process detached from the fork (its
own session, ignoring SIGTERM, writing a file every few milliseconds), files and a read-only
folder in the jail's /tmp, a file beside their own in their work folder. The next student,
graded in the same jail (its process 1 started once, the test checks it), looks for all of it:
no process but their own and the jail's process 1, nothing in /tmp but their own work folder.
Both hand in the worked solution with these lines added, so both keep every point (the honest
control), exactly as a student graded in a jail of their own does.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.engine.jail import unavailable
from routerlab.exercises.engine.jail_keeper import JailKeeper
from routerlab.exercises.teacher.classroom import (
    GradeJob,
    LocalExecutor,
    StudentResult,
    grade_student,
)

pytestmark = [pytest.mark.skipif(unavailable() is not None, reason=str(unavailable())),
              pytest.mark.alone]  # jails, one at a time (tests/conftest.py)

CATALOG = load_catalog()
EXERCISE = CATALOG.get("quant-1")

LEAVE = """
import os, time
if os.fork() == 0:  # a process of its own session, out of the fork's way
    os.setsid()
    if os.fork() == 0:
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for n in range(100000):
            try:
                with open(f"/tmp/kept-{n % 3}", "w") as out:
                    out.write("left by the last student")
            except OSError:
                pass
            time.sleep(0.005)
    os._exit(0)
os.makedirs("/tmp/locked/inner")
open("/tmp/locked/inner/note", "w").write("left by the last student")
os.chmod("/tmp/locked/inner", 0o500)
os.chmod("/tmp/locked", 0o500)
open("/tmp/left.txt", "w").write("left by the last student")
open("left-in-work.txt", "w").write("left by the last student")
time.sleep(0.2)
print("LEFT", json.dumps(sorted(os.listdir("/tmp"))))
"""
LOOK = """
import os
def _found():
    me = os.getpid()
    others = sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me))
    here = os.path.basename(os.getcwd())
    files = sorted(n for n in os.listdir("/tmp") if n != here)
    return {"processes": others, "tmp": files, "work": sorted(os.listdir("."))}
print("FOUND", json.dumps(_found()))
"""


def _submission(root: Path, name: str, lines: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / EXERCISE.file_name).write_text("import json\n" + lines + "\n"
                                             + open_solution(EXERCISE))
    return folder


def _seen(result: StudentResult, tag: str) -> object:
    graded = next(e for e in result.exercises if e.id == EXERCISE.id)
    found = re.search(rf"{tag} (.*)", graded.output)
    assert found, (graded.problem, graded.output[-2000:])
    return json.loads(found.group(1))


def _points(result: StudentResult) -> float:
    return next(e.points for e in result.exercises if e.id == EXERCISE.id)


def test_what_a_student_leaves_in_a_kept_jail_never_reaches_the_next(tmp_path: Path) -> None:
    leaver = _submission(tmp_path, "leaver", LEAVE)
    looker = _submission(tmp_path, "looker", LOOK)
    alone = grade_student(looker)  # the honest control, in a jail of its own
    with JailKeeper() as jails:
        first = grade_student(leaver, jails=jails)
        second = grade_student(looker, jails=jails)
        kept = jails._local.jail
        assert kept.started == 1, "the second student was not graded in the first one's jail"
    assert kept.process is None  # closed with the keeper
    assert "left.txt" in str(_seen(first, "LEFT")) and "kept-0" in str(_seen(first, "LEFT"))
    assert _seen(second, "FOUND") == {"processes": [], "tmp": [], "work": [EXERCISE.file_name]}
    assert _points(first) == _points(second) == _points(alone) == EXERCISE.points
    assert not first.error and not second.error


def _count_jails(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[int]]:
    """The ids of the jails started and of the running ones closed, from now on."""
    from routerlab.exercises.engine import jail as jail_module

    started: list[int] = []
    closed: list[int] = []
    lock = threading.Lock()
    real_start, real_close = jail_module.Jail._start, jail_module.Jail.close

    def counted_start(self: jail_module.Jail) -> None:
        with lock:
            started.append(id(self))
        real_start(self)

    def counted_close(self: jail_module.Jail) -> None:
        if self.process is not None:
            with lock:
                closed.append(id(self))
        real_close(self)

    monkeypatch.setattr(jail_module.Jail, "_start", counted_start)
    monkeypatch.setattr(jail_module.Jail, "close", counted_close)
    return started, closed


def test_a_class_run_keeps_one_jail_per_worker_and_ends_them_all(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    """Three students on two workers: at most two jails start, none is left running."""
    started, closed = _count_jails(monkeypatch)
    folders = [_submission(tmp_path, f"s{n}", LOOK) for n in range(3)]
    results = list(LocalExecutor(2).run([GradeJob(f.name, str(f)) for f in folders]))
    assert sorted(r.student_id for r in results) == ["s0", "s1", "s2"]
    assert all(_points(r) == EXERCISE.points for r in results)
    assert all(_seen(r, "FOUND")["processes"] == [] for r in results)  # type: ignore[index]
    assert 1 <= len(set(started)) <= 2 and sorted(closed) == sorted(set(started))


def test_lint_grades_every_run_in_a_jail_kept_per_thread(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """`teacher lint` with variants: each exercise's starter, solution, wrong submissions,
    mutants and variants run in forks of its thread's kept jail (it started about 200 jails for
    the catalog), every one ended at the end, and the verdicts are still found: a mutant that
    passes is reported, the variants are counted."""
    from routerlab.exercises.authoring.lint import VARIANT_WORKERS, lint
    from routerlab.exercises.engine.runner import workers

    started, closed = _count_jails(monkeypatch)
    chosen = ["quant-3", "registry-3", "flow-2"]
    results = lint(CATALOG, chosen, mutants=6, variants=3)
    assert [r.exercise.id for r in results] == chosen
    assert all(r.ok for r in results), [r.problems for r in results]
    assert [r.variants for r in results] == [3 if CATALOG.get(i).variant.varies else 0
                                            for i in chosen]
    mutated = [r.mutation for r in results if r.mutation is not None]
    assert len(mutated) == 2
    assert all(0 < len(m.killed) + len(m.survived) + len(m.equivalent) <= 6 for m in mutated)
    assert 1 <= len(set(started)) <= workers() + VARIANT_WORKERS
    assert sorted(closed) == sorted(set(started))


def test_a_broken_jail_is_replaced_before_the_next_student(tmp_path: Path) -> None:
    """A jail that could not grade its last student (`Jail.broken`: it did not start, or ended
    before an exercise began) is closed, and the next student gets a new one."""
    from routerlab.exercises.engine.jail import JailDied

    looker = _submission(tmp_path, "looker", LOOK)
    with JailKeeper() as jails:
        assert _points(grade_student(looker, jails=jails)) == EXERCISE.points
        broken = jails._local.jail
        broken.broken = JailDied("the grading jail did not start")
        again = grade_student(looker, jails=jails)
        assert jails._local.jail is not broken and broken.process is None
        assert _points(again) == EXERCISE.points and not again.error
