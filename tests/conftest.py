"""Fixtures for the whole suite."""

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
