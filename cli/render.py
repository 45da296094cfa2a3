"""The CLI's output: rich renderables from `routerlab.present.rich`, and `--json` documents.

Commands import `make_console` and `to_rich` from here at call time (so a test can swap the
console factory in one place); how a table looks is decided in `routerlab.present`, with the same
palette as the notebooks.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from routerlab.core.view import TableView
from routerlab.present.rich import make_console, to_rich

__all__ = ["make_console", "print_json", "to_rich"]


def print_json(payload: Any) -> None:
    """Exactly one JSON document on stdout (for `--json`), nothing else."""
    sys.stdout.write(json.dumps(payload, indent=2, default=_jsonable) + "\n")


def _jsonable(value: Any) -> Any:
    if isinstance(value, TableView):
        return value.to_dict()
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return str(value)
