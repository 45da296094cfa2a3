"""The wire exercises' variants: each variant's flow and programs are the ones its statement
describes, and the oracle's answers come from running them (docs/burn.md sections 20 and 21)."""

from __future__ import annotations

import tomllib

import pytest

from routerlab.core.wire import every_order
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.checks.wire import (
    PANIC_FLOW,
    panic_flow,
    streams,
    surfacing,
    two_streams,
)


@pytest.mark.parametrize(("made", "adds"), [(1, 1), (3, 2), (4, 4)])
def test_wire2_panics_at_the_quantize_and_shows_at_the_read(made: int, adds: int) -> None:
    """The statement numbers x, the `made` tensors, the quantize, the clone, the `adds` adds and
    the read; the model fails at the quantize's step, and the user sees it at the read only
    (crates/burn-remote/src/client/runner.rs:44-52)."""
    steps = tomllib.loads(panic_flow(made, adds))["steps"]
    ops = [step["op"] for step in steps]
    assert ops == ["tensor"] * (made + 1) + ["quantize", "clone"] + ["add"] * adds + ["read"]
    answers = surfacing.answers({"made": made, "adds": adds})
    assert answers == {"PANIC_STEP": ops.index("quantize") + 1, "SEEN_STEP": len(ops),
                       "SEEN_WITHOUT_READ": "never"}


def test_wire2s_own_variant_is_the_flow_notebook_09_runs() -> None:
    defaults = load_catalog().get("wire-2").variant.defaults()
    assert panic_flow(**defaults) == PANIC_FLOW


@pytest.mark.parametrize(("a_uses", "b_uses"), [(0, 0), (2, 1), (6, 2)])
def test_wire3_every_order_panics_without_the_alias_and_none_with_it(a_uses: int,
                                                                     b_uses: int) -> None:
    shared = every_order(streams(a_uses, b_uses), after=1)
    aliased = every_order(streams(a_uses, b_uses, alias=True), after=2)
    assert len(shared) == len(aliased) > 1
    answers = two_streams.answers({"a_uses": a_uses, "b_uses": b_uses})
    assert answers == {"PANICS_SHARED": len(shared), "PANICS_ALIASED": 0,
                       "BUFFERS_LEFT_ALIASED": 0}
    assert all("Should have handle" in (o.panic or "") for o in shared)
