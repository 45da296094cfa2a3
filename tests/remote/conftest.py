"""Real served peers for the remote tests: two `routerlab serve` processes on loopback, on ports
the operating system picks at run time, shared by every test of this package and stopped after
them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from routerlab.core.serving import LocalPeers


@pytest.fixture(scope="package")
def peers() -> Iterator[dict[str, str]]:
    """`{"peer1": "ws://127.0.0.1:…", "peer2": …}`, each serving cpu:0 and cpu:1 (flex)."""
    local = LocalPeers(2)
    try:
        yield local.start()
    finally:
        local.stop()
    assert all(p.returncode is not None for p in local.processes)
