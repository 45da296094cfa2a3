"""Shared fixtures for the core tests."""

from __future__ import annotations

import pytest

from routerlab.core import Runtime


@pytest.fixture
def rt() -> Runtime:
    """A runtime with two devices on the local peer and one on `peer2`."""
    return Runtime(["cpu:0", "cpu:1", "peer2/cpu:0"])


def _snapshot(rt: Runtime) -> dict[str, object]:
    """Every registry's ids and handles, and every session's state: what 'left exactly as it
    was' compares."""
    state: dict[str, object] = {}
    for device in rt.devices:
        state[str(device)] = {i: id(rt.handle(device, i)) for i in rt.handle_ids(device)}
    state["pending"] = rt.server.pending_transfers()
    return state


@pytest.fixture
def snapshot():  # type: ignore[no-untyped-def]
    """`snapshot(rt)`: a comparable picture of every registry of `rt`."""
    return _snapshot
