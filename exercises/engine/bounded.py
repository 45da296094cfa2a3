"""JSON from an untrusted process, parsed only once its size and nesting are known to be small.

`json.loads` recurses once per level: a result line nested 100 000 deep raises `RecursionError`
in the parser (or worse, in whatever walks the value next). So the nesting is measured first, on
the text, with strings skipped, and a line over the limits is refused as malformed without
parsing it.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64
MAX_BYTES = 8 * 1024 * 1024
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class Malformed(ValueError):
    """The text is too large, too deep, or not JSON."""


def depth(text: str) -> int:
    """The deepest nesting of brackets outside strings (an unterminated string stops the scan,
    and json.loads then refuses the text)."""
    level = deepest = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            level += 1
            deepest = max(deepest, level)
        elif token in "]}":
            level -= 1
    return deepest


def bounded_json(text: str, max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES) -> Any:
    """The parsed value, or `Malformed` (never RecursionError or MemoryError)."""
    if len(text) > max_bytes:
        raise Malformed(f"{len(text)} characters, more than {max_bytes}")
    if depth(text) > max_depth:
        raise Malformed(f"nested deeper than {max_depth}")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise Malformed(str(error)) from None
