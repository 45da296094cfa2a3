"""`--json` output: exactly one JSON document on stdout, without importing rich.

Kept apart from `render.py` (which builds rich tables) so that a `--json` run loads only the
json module: `routerlab quantize --json` starts almost as fast as a bare Typer app with numpy
(benchmarks/cli_start.py measures it).
"""

from __future__ import annotations

import json
import sys
from typing import Any

JSON_HINT = "a smaller tensor or fewer hops, or --summary where the command has it"
"""What a refused `--json` suggests by default (docs/limits.md)."""


def print_json(payload: Any, hint: str = JSON_HINT) -> None:
    """Exactly one JSON document on stdout (for `--json`), nothing else, and nothing at all
    when it would pass `JSON_OUTPUT_MAX_BYTES`: it is encoded in chunks and refused, with the
    `hint`, the moment it does, before a byte is written (docs/limits.md)."""
    from ..core import LimitError
    from ..core.base.limits import JSON_OUTPUT_MAX_BYTES, human_bytes

    chunks, size = [], 0
    for chunk in json.JSONEncoder(indent=2, default=_jsonable).iterencode(payload):
        size += len(chunk)
        if size > JSON_OUTPUT_MAX_BYTES:
            raise LimitError(f"--json output passes {human_bytes(JSON_OUTPUT_MAX_BYTES)}, the "
                             f"limit: {hint}")
        chunks.append(chunk)
    sys.stdout.write("".join(chunks) + "\n")


def _jsonable(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return str(value)
