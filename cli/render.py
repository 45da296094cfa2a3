"""The CLI's output: rich renderables from `routerlab.present.rich`, and `--json` documents.

Commands import `make_console`, `to_rich` and `safe` from here at call time (so a test can swap
the console factory in one place); how a table looks is decided in `routerlab.present`, with the
same palette as the notebooks.
"""

from __future__ import annotations

from routerlab.cli.output import JSON_HINT, print_json
from routerlab.present.rich import make_console, safe, to_rich

__all__ = ["JSON_HINT", "make_console", "print_json", "safe", "to_rich"]
