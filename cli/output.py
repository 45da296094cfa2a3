"""`--json` output: exactly one JSON document on stdout, without importing rich.

Kept apart from `render.py` (which builds rich tables) so that a `--json` run loads only the
json module: `routerlab quantize --json` starts almost as fast as a bare Typer app with numpy
(benchmarks/cli_start.py measures it).
"""

from __future__ import annotations

import json
import sys
from typing import Any


def print_json(payload: Any) -> None:
    """Exactly one JSON document on stdout (for `--json`), nothing else."""
    sys.stdout.write(json.dumps(payload, indent=2, default=_jsonable) + "\n")


def _jsonable(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return str(value)
