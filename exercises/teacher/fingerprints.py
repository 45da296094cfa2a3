"""What copy detection keeps of a student's file: taken from the bytes read once at the intake.

`code_prints(source)`: the file's winnowed token fingerprints, as MOSS makes them (Schleimer,
Wilkerson and Aiken, "Winnowing: local algorithms for document fingerprinting", SIGMOD 2003).
The source is tokenised; comments, layout and the module docstring (the statement, which
differs between variants) are dropped; every identifier that is not a keyword or an attribute
name becomes `N`, so renaming variables, functions or an import's alias changes nothing; every
`K`-token window is hashed, and of each `W` consecutive hashes the smallest is kept. Two files
that share a run of at least `K + W - 1` tokens (after renaming) share a fingerprint, whatever
the order of their functions. A file of fewer than `MIN_TOKENS` tokens has no fingerprints
(too short to tell a copy from the natural answer).

`answers_digest(exercise, source)`: a predict file's answers, all parts given, in the canonical
form a check compares (read as literals, never run); "" when a part is missing.

Nothing here runs a student's file. The evidence travels in the student's result
(`ExerciseResult.prints`, `.answers`), so pairing never reads a path again.
"""

from __future__ import annotations

import hashlib
import io
import json
import keyword
import tokenize
from typing import Any

from ..catalog import Exercise, Kind

K = 5
"""Tokens per hashed window (MOSS's noise threshold)."""
W = 4
"""Hashes per winnowing window: a shared run of `K + W - 1` = 8 tokens is always found."""
MIN_TOKENS = 30
"""Files shorter than this (after the docstring) are left out of copy detection."""
_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER}


def tokens(source: str) -> list[str]:
    """The file's tokens, normalised (see the module docstring); [] if Python cannot read it."""
    try:
        found = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                 if t.type not in _SKIPPED]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return []
    if found and found[0].type == tokenize.STRING:  # the module docstring: the statement
        found = found[1:]
    out: list[str] = []
    for index, token in enumerate(found):
        after_dot = index > 0 and found[index - 1].string == "."
        if token.type == tokenize.NAME and not keyword.iskeyword(token.string) and not after_dot:
            out.append("N")
        else:
            out.append(token.string)
    return out


def code_prints(source: str) -> list[int]:
    """The file's winnowed fingerprints, sorted and unique (see the module docstring)."""
    words = tokens(source)
    if len(words) < MIN_TOKENS:
        return []
    hashes = [_hash(words[i:i + K]) for i in range(len(words) - K + 1)]
    kept: set[int] = set()
    for start in range(max(1, len(hashes) - W + 1)):
        window = hashes[start:start + W]
        kept.add(min(window))
    return sorted(kept)


def answers_digest(exercise: Exercise, source: str) -> str:
    """A digest of a predict file's answers, every part given ("" otherwise, or for an
    implement exercise)."""
    if exercise.kind is Kind.IMPLEMENT:
        return ""
    from ..checks import suite_for
    from ..checks.base import CheckFailure, PredictSuite
    from ..engine.literals import NotData, literal_answers

    suite = suite_for(exercise)
    if not isinstance(suite, PredictSuite):
        return ""
    names = [p.name for p in suite.parts]
    try:
        given = literal_answers(source, names)
        formed = {p.name: p.form(given[p.name]) for p in suite.parts
                  if not (isinstance(given[p.name], dict) and set(given[p.name]) &
                          {"missing", "todo", "not_data"})}
    except (NotData, CheckFailure, ValueError, RecursionError, MemoryError):
        return ""
    return values_digest(formed) if len(formed) == len(names) else ""


def values_digest(values: dict[str, Any]) -> str:
    """A digest of answers by part, in canonical form (the student's, or a variant's truth)."""
    from ..answers import canonical

    text = json.dumps({k: canonical(v) for k, v in sorted(values.items())})
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _hash(window: list[str]) -> int:
    digest = hashlib.blake2b("\x1f".join(window).encode(), digest_size=6).digest()
    return int.from_bytes(digest, "big")
