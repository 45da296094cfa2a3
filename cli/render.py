"""The CLI's output: rich renderables from `routerlab.present.rich`, and `--json` documents.

Commands import `make_console`, `to_rich` and `safe` from here at call time (so a test can swap
the console factory in one place); how a table looks is decided in `routerlab.present`, with the
same palette as the notebooks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..present.rich import make_console, safe, to_rich
from .output import JSON_HINT, print_json

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["JSON_HINT", "make_console", "print_code", "print_json", "safe", "to_rich"]


def print_code(console: Console, code: str, plain: bool) -> None:
    """Python as it can be pasted back: coloured, but never wrapped or cut. Each line goes out
    whole (soft wrap: a narrow terminal folds it on screen, but a copy of it is one line), so
    pasted code runs. Never inside a panel, whose width would cut it."""
    from rich.syntax import Syntax

    highlighted = Syntax(code, "python", theme="ansi_dark" if not plain else "bw",
                         background_color=None).highlight(code)
    highlighted.no_wrap = True
    console.print(highlighted, soft_wrap=True, crop=False, highlight=False)
