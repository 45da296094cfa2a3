"""What the class tests need: JupyterHub, configurable-http-proxy and Dask, or a skip saying why."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # `hubtools`, shared by the class tests

from hubtools import DemoHub, need_hub  # noqa: E402


@pytest.fixture
def demo_hub(tmp_path: Path) -> Iterator[DemoHub]:
    need_hub()
    hub = DemoHub(tmp_path / "hub", students=2, password="class-pw-1")
    try:
        yield hub
    finally:
        hub.cleanup()
