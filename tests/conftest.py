"""Fixtures for the whole suite, and how `./run test` shares the machine between tests.

`./run test` runs pytest-xdist, two workers a core, with `--dist loadscope`: a module's tests go
to one worker (so a module-scoped fixture, the docs' command blocks or a JupyterLab, is built once),
and every module marked `alone` (a headless browser, the demo hub, a Dask cluster, the jail's
cgroups) joins one scope, `alone`, so those run one after another on one worker while the others
take the rest (`pytest_xdist_make_scheduler` below). The longest work is handed out first (the
`alone` scope, then modules holding a test marked `slow`, then by number of tests), so that no
worker starts a two-minute module while the others finish (`pytest_collection_modifyitems`).
pytest-xdist's own `xdist_group` would say the same, but pytest-xdist 3.8 renames a grouped test
through `Item._nodeid`, which pytest 9.2 no longer reads: the groups were silently ignored.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session", autouse=True)
def teacher_data_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`teacher release` keeps each course's secret in the teacher's data folder
    (`$XDG_DATA_HOME/routerlab/courses/`): the tests keep theirs in a temporary one, never in the
    home of whoever runs them. Subprocesses inherit it."""
    before = os.environ.get("XDG_DATA_HOME")
    folder = str(tmp_path_factory.mktemp("teacher-data"))
    os.environ["XDG_DATA_HOME"] = folder
    yield folder
    if before is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = before



ALONE = "alone"
"""The one xdist scope of every module marked `alone`."""


@functools.cache
def _source(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def alone_module(path: Path) -> bool:
    """Whether the test module at `path` is marked `alone` (a module's mark: `pytestmark`)."""
    return "pytest.mark.alone" in _source(path)


def first_order(paths: list[Path]) -> dict[Path, tuple[int, int]]:
    """Each test module's place in the queue: `alone` first, then a module with a test marked
    `slow`, then the others by their number of tests, most first (xdist's own order)."""
    counts: dict[Path, int] = {}
    for path in paths:
        counts[path] = counts.get(path, 0) + 1
    return {path: (0 if alone_module(path) else 1 if "pytest.mark.slow" in _source(path) else 2,
                   -count) for path, count in counts.items()}


def scope_of(root: Path, nodeid: str) -> str | None:
    """`alone` for a test of an `alone` module, else None (xdist's own scope: its module)."""
    return ALONE if alone_module(root / nodeid.split("::", 1)[0]) else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker, the modules in `first_order` (every worker sorts alike, so the
    collections still agree; a run in one process keeps pytest's order)."""
    if not hasattr(config, "workerinput"):
        return
    order = first_order([item.path for item in items])
    items.sort(key=lambda item: order[item.path])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadscope`, xdist's scheduler with every `alone` module in one scope, the
    scopes in the workers' collection order (`pytest_collection_modifyitems`)."""
    if config.getvalue("dist") != "loadscope":
        return None
    config.option.loadscopereorder = False
    from xdist.scheduler import LoadScopeScheduling

    root = config.rootpath

    class AloneTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(root, nodeid) or super()._split_scope(nodeid)

    return AloneTogether(config, log)
