"""The CLI's output: rich renderables from `routerlab.present.rich`, and `--json` documents.

Commands import `make_console`, `to_rich` and `safe` from here at call time (so a test can swap
the console factory in one place); how a table looks is decided in `routerlab.present`, with the
same palette as the notebooks.
"""

from __future__ import annotations

from ..present.rich import make_console, safe, to_rich
from .output import JSON_HINT, print_json

__all__ = ["JSON_HINT", "make_console", "print_json", "safe", "to_rich"]
