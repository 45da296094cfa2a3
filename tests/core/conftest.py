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
        handles = rt.session(device).interpreter.handles
        state[str(device)] = {int(i): id(handles.get_handle_ref(i)) for i in handles.handle_ids()}
    state["pending"] = rt.server.pending_transfers()
    return state


@pytest.fixture
def snapshot():  # type: ignore[no-untyped-def]
    """`snapshot(rt)`: a comparable picture of every registry of `rt`."""
    return _snapshot
