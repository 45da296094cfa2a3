"""Starters ask the question, not the answer (issue 39, item 4): a starter (its statement and its
code) gives the signature, the Burn file and lines to read and what the visible checks test, never
the algorithm step by step nor the constants Burn's source holds; hint 3 is the last step of
reasoning, not the code."""

from __future__ import annotations

import re

import pytest

from routerlab.exercises.catalog import Kind, load_catalog

OWN = ("capstone-",)
"""Exercises whose starters another track writes (the capstone: fix-2's pieces carried forward
into one file)."""

GIVEAWAYS: dict[str, tuple[str, ...]] = {
    "flow-4": ("setdefault", "!= (d.kind"),
    "registry-1": ("handles.pop(", "return handles[tensor_id]"),
    "registry-3": ("count <= 1", "READ_WRITE if"),
    "lifecycle-1": ("count <= 1", "increment the count first", "count += 1", "prev = count"),
    "transfer-1": ("is_uint() else", "backend.float_to_device,"),
    "transfer-3": ("pending.pop(", "pending[transfer_id] ="),
    "transfer-5": ("source.peer == target.peer",),
    "quant-1": ("2 * alpha / (b - a)", "RANGES", "(-127, 127)", "[-127, 127]", "[-8, 7]"),
    "quant-2": ("65504", "3.39e38", "2^-14", "2.0**-14", "2^-24", "2^-9", "bit_step", "step - 1",
                "DIGITS", "SUBNORMAL", "11 digits"),
    "quant-3": ("word |=", "<< (k * bits)"),
    "quant-7": ("- (1 << bits)", "& mask"),
    "quant-8": ("-(-", "enumerate(block)"),
    "gap-1": ("else if dtype.is_int()", "if dtype.is_float() {"),
    "fix-1": ("kind_of(", "MOVING_POLICIES", "policy in {"),
    "fix-2": ("count_copy(scales.nbytes", "np.array(t.scales", "DType.U32 if"),
    "wire-1": ("FLUSH_THRESHOLD", "FLUSH_BYTES_THRESHOLD", "1024 * 1024", "4 tasks, 1 MiB",
               "ANSWERED", "TRANSFERS", "queued + 1", "queued_bytes >="),
    "wire-4": ("get_tensor_handle(", "backend.add(", "backend.mul(", "op.outs[0].id",
               "read the three inputs through"),
    "build-1": (), "build-2": (), "build-3": (), "build-4": (), "build-5": (), "build-6": (),
    "build-7": ("source.peer == target.peer", "if tensor.client is target"),
    "build-8": ("popleft", "queue.clear()", "No custom-op handler", "get_tensor_handle(op.",
                "backend.add", "quantize_dynamic(np.asarray"),
}
"""Per exercise, text of the answer its starter or hint 3 handed over before (issue 39)."""

CODE = re.compile(r"==|!=|<=|>=|\+=|-=|\bdef \w+\(|\blambda\b|\w\[\w+\]\s*=|;\s*\w+\s*=|"
                  r"\breturn \w+\s*[-+*/<>=(]|\w+ = \w+\(")
"""Code in a hint: a comparison, an assignment, a definition, a statement list."""

IMPLEMENT = [e for e in load_catalog() if e.kind is Kind.IMPLEMENT
             and not e.id.startswith(OWN)]


def test_every_implement_exercise_of_this_track_is_scanned() -> None:
    assert sorted(e.id for e in IMPLEMENT) == sorted(GIVEAWAYS)


@pytest.mark.parametrize("exercise", IMPLEMENT, ids=lambda e: e.id)
def test_a_starter_asks_the_question(exercise) -> None:  # noqa: ANN001
    starter = exercise.starter()
    found = [g for g in GIVEAWAYS[exercise.id] if g in starter]
    assert not found, found
    code = starter.split('"""', 2)[2]  # below the statement: the starter's own code
    assert "crates/" in code, "the Burn file and lines to read"
    assert re.search(r"\.rs:\d+", code), "with its lines"
    assert "visible checks" in code, "what the visible checks test"


@pytest.mark.parametrize("exercise", IMPLEMENT, ids=lambda e: e.id)
def test_hint_3_is_the_last_step_of_reasoning_not_the_code(exercise) -> None:  # noqa: ANN001
    last = exercise.hints[2]
    assert not CODE.search(last), CODE.search(last)
    assert not [g for g in GIVEAWAYS[exercise.id] if g in last]


def test_the_scan_finds_what_the_old_starters_gave() -> None:
    """The patterns are real: quant-2's old hint 3 and lifecycle-1's old statement line trip
    them."""
    old_hint = ("if dtype == 'f32': return s; bits = f32 bits of s; step = 1 << (24 - DIGITS["
                "dtype]); bits = (bits + step - 1) & ~(step - 1)")
    assert CODE.search(old_hint)
    assert any(g in old_hint for g in GIVEAWAYS["quant-2"])
    assert any(g in "`ReadWrite` when `count <= 1`" for g in GIVEAWAYS["lifecycle-1"])
