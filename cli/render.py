"""The CLI's output: rich renderables from `routerlab.present.rich`, and `--json` documents.

Commands import `make_console`, `to_rich` and `safe` from here at call time (so a test can swap
the console factory in one place); how a table looks is decided in `routerlab.present`, with the
same palette as the notebooks.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from routerlab.core.view import TableView
from routerlab.present.rich import make_console, safe, to_rich

__all__ = ["JSON_HINT", "make_console", "print_json", "safe", "to_rich"]

JSON_HINT = "a smaller tensor or fewer hops, or --summary where the command has it"
"""What a refused `--json` suggests by default (docs/limits.md)."""


def print_json(payload: Any, hint: str = JSON_HINT) -> None:
    """Exactly one JSON document on stdout (for `--json`), nothing else, and nothing at all
    when it would pass `JSON_OUTPUT_MAX_BYTES`: it is encoded in chunks and refused, with the
    `hint`, the moment it does, before a byte is written (docs/limits.md)."""
    from routerlab.core.errors import LimitError
    from routerlab.core.limits import JSON_OUTPUT_MAX_BYTES, human_bytes

    chunks, size = [], 0
    for chunk in json.JSONEncoder(indent=2, default=_jsonable).iterencode(payload):
        size += len(chunk)
        if size > JSON_OUTPUT_MAX_BYTES:
            raise LimitError(f"--json output passes {human_bytes(JSON_OUTPUT_MAX_BYTES)}, the "
                             f"limit: {hint}")
        chunks.append(chunk)
    sys.stdout.write("".join(chunks) + "\n")


def _jsonable(value: Any) -> Any:
    if isinstance(value, TableView):
        return value.to_dict()
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return str(value)
