"""Fixtures for the whole suite, and which tests `./run test` runs apart.

`./run test` runs the suite in two passes (the `run` script): every test not marked `alone` on
all cores (pytest-xdist, `-n auto`), then the `alone` ones (a headless browser, the demo hub, a
Dask cluster, the jail's cgroups) one after another in one process, so no two of them share the
machine. (pytest-xdist's `xdist_group` would do it in one pass, but pytest-xdist 3.8 renames a
grouped test through `Item._nodeid`, which pytest 9.2 no longer reads: the groups were ignored.)
"""

from __future__ import annotations

import os
from collections.abc import Iterator

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

