"""Checks of the quantization exercises: scales, their round-up, packing, the byte layout.

The student's function runs where the model's own function would: their packed words are read by
the model's `unpack_u32`, their rounded scales are stored and decoded by the model's scale codec,
and hidden seeded cases compare them with the model (the reference implementation).
"""

from __future__ import annotations

import random

import numpy as np

from routerlab.core.quant.packing import pack_u32 as model_pack_u32
from routerlab.core.quant.packing import unpack_u32
from routerlab.exercises.checks.base import CheckFailure, Submission, Suite, compare_cases

packing = Suite("quant-3")


def _model_pack(values: list[int], bits: int) -> list[int]:
    return [int(w) for w in model_pack_u32(np.array(values, dtype=np.int8), bits)]


def _words(got: object) -> list[int]:
    if not isinstance(got, list | tuple) or not all(isinstance(w, int | np.integer) for w in got):
        raise CheckFailure("pack_u32 must return a list of ints (one per u32 word)",
                           got=repr(got), hint=1)
    return [int(w) for w in got]


def _expect_words(sub: Submission, values: list[int], bits: int, why: str) -> None:
    got = _words(sub.function("pack_u32")(list(values), bits))
    want = _model_pack(values, bits)
    if got != want:
        raise CheckFailure(f"pack_u32({values}, bits={bits}): {why}",
                           expected=f"{want}  (hex {[hex(w) for w in want]})",
                           got=f"{got}  (hex {[hex(w) for w in got]})", hint=2)


@packing.visible("Burn's unit test: Q8 [-128, 2, -3, 127] is one word, 2147287680", hint=2)
def _(sub: Submission) -> None:
    _expect_words(sub, [-128, 2, -3, 127], 8, "value k goes to byte k, low byte first")


@packing.visible("a negative Q4 value keeps only its 4 low bits", hint=2)
def _(sub: Submission) -> None:
    _expect_words(sub, [-1, 1], 4, "-1 in 4 bits is 0b1111; the second value sits in bits 4..8")


@packing.visible("a row that does not fill its last word is zero-padded", hint=1)
def _(sub: Submission) -> None:
    _expect_words(sub, [1, -2, 3, -4, 5, -6, 7, -8, 1], 4, "9 Q4 values need 2 words")


@packing.visible("the model's unpack_u32 reads your Q2 words back", hint=2)
def _(sub: Submission) -> None:
    rows = np.array([[1, -2, 0, -1, 1, 1, -2], [0, 0, -1, 1, -2, -2, 1]], dtype=np.int8)
    pack = sub.function("pack_u32")
    words = np.array([_words(pack(row.tolist(), 2)) for row in rows], dtype=np.uint32)
    back = unpack_u32(words, 2, rows.shape[1])
    if not np.array_equal(back, rows):
        raise CheckFailure("the model unpacked your words to other values",
                           expected=str(rows.tolist()), got=str(back.tolist()), hint=2)


@packing.hidden("300 seeded random rows of 2-, 4- and 8-bit values, against the model")
def _(sub: Submission) -> None:
    rng = random.Random(20260903)
    cases = []
    for _ in range(300):
        bits = rng.choice((2, 4, 8))
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        cases.append(([rng.randint(low, high) for _ in range(rng.randint(1, 40))], bits))
    compare_cases(lambda v, b: _words(sub.function("pack_u32")(list(v), b)), _model_pack, cases,
                  same=lambda a, b: a == b, describe=lambda c: f"bits={c[1]}, values={c[0]}")


@packing.hidden("the ends of each range, alone in a word", hint=1)
def _(sub: Submission) -> None:
    cases = [([v], bits) for bits in (2, 4, 8) for v in (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)]
    compare_cases(lambda v, b: _words(sub.function("pack_u32")(list(v), b)), _model_pack, cases,
                  same=lambda a, b: a == b, describe=lambda c: f"bits={c[1]}, values={c[0]}",
                  hint=1)
