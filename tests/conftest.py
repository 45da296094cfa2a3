"""Fixtures for the whole suite, and how `./run test` shares the machine between tests.

`./run test` runs pytest-xdist, one worker per core, with `--dist loadscope`: a module's tests go
to one worker (so a module-scoped fixture, the docs' command blocks or a JupyterLab, is built once),
and every module marked `alone` (a headless browser, the demo hub, a Dask cluster, the jail's
cgroups) joins one scope, `alone`, so those run one after another on one worker while the others
take the rest (`pytest_xdist_make_scheduler` below). pytest-xdist's own `xdist_group` would say
the same, but pytest-xdist 3.8 renames a grouped test through `Item._nodeid`, which pytest 9.2 no
longer reads: the groups were silently ignored.
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
def alone_module(path: Path) -> bool:
    """Whether the test module at `path` is marked `alone` (a module's mark: `pytestmark`)."""
    try:
        return "pytest.mark.alone" in path.read_text(encoding="utf-8")
    except OSError:
        return False


def scope_of(root: Path, nodeid: str) -> str | None:
    """`alone` for a test of an `alone` module, else None (xdist's own scope: its module)."""
    return ALONE if alone_module(root / nodeid.split("::", 1)[0]) else None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadscope`, xdist's scheduler with every `alone` module in one scope."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    root = config.rootpath

    class AloneTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(root, nodeid) or super()._split_scope(nodeid)

    return AloneTogether(config, log)
