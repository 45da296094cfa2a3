"""The wire exercises' variants: each variant's flow and programs are the ones its statement
describes, and the oracle's answers come from running them (docs/burn.md sections 20 and 21)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

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

NOTEBOOK_09 = Path(__file__).resolve().parents[2] / "notebooks" / "09-the-wire.ipynb"


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
    """Notebook 09 writes the flow out inside wire-2's reveal (it imports no check module): its
    steps are the catalog variant's."""
    defaults = load_catalog().get("wire-2").variant.defaults()
    assert panic_flow(**defaults) == PANIC_FLOW
    cells = json.loads(NOTEBOOK_09.read_text(encoding="utf-8"))["cells"]
    reveal = next("".join(c["source"]) for c in cells
                  if c["cell_type"] == "code" and 'lab.reveal("wire-2"' in "".join(c["source"]))
    flow = re.search(r'"""(.*?)"""', reveal, re.S)
    assert flow is not None and reveal.index("lambda") < flow.start()  # built inside the reveal
    assert tomllib.loads(flow.group(1))["steps"] == tomllib.loads(PANIC_FLOW)["steps"]


@pytest.mark.parametrize(("a_uses", "b_uses"), [(0, 0), (2, 1), (6, 2)])
def test_wire3s_answers_are_measured_on_the_program_the_learner_writes(a_uses: int,
                                                                       b_uses: int) -> None:
    """Issue 39: the experiment's answers are not on screen before the learner changes the
    program. The notebook shows the shared program; the answers are about the aliased one (the
    learner writes it) and about handing #2 over before the alias exists (a second change)."""
    shared = every_order(streams(a_uses, b_uses), after=1)
    aliased = every_order(streams(a_uses, b_uses, alias=True), after=2)
    early = every_order(streams(a_uses, b_uses, alias=True), after=1)
    assert all("Should have handle" in (o.panic or "") for o in shared)
    answers = two_streams.answers({"a_uses": a_uses, "b_uses": b_uses})
    assert answers == {"PANICS_ALIASED": 0, "ORDERS_HANDED_EARLY": len(early),
                       "PANICS_HANDED_EARLY": sum(o.panic is not None for o in early)}
    assert 0 < answers["PANICS_HANDED_EARLY"] < answers["ORDERS_HANDED_EARLY"]
    assert answers["ORDERS_HANDED_EARLY"] not in (len(shared), len(aliased))  # not on screen
    early_panics = [o for o in early if o.panic]  # B's first call came before the alias
    assert all(o.calls.index(next(c for c in o.calls if c.stream == 2))
               < o.calls.index(next(c for c in o.calls if c.op == "alias")) for o in early_panics)
