"""Plain text: what a terminal without rich, a log or a text-only front end shows.

No colour at all; the style words are dropped, never turned into escape codes. The cell texts are
`format_cell`'s, the same as in HTML and rich, so every rendering of one view reads alike.
"""

from __future__ import annotations

from ..core import TableView, format_cell
from .legend import legend_lines


def table(view: TableView) -> str:
    """Title, a header line and one line per row, columns padded to their widest cell; the
    caption and, under a trace, its legend."""
    cells = [list(view.columns)] + [[format_cell(c) for c in row] for row in view.rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(view.columns))]
    lines = [view.title] + ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                            for r in cells]
    return "\n".join(lines + ([view.caption] if view.caption else []) + legend_lines(view))


def callout(tone: str, heading: str, body: str = "") -> str:
    """`[tone] heading`, then the body on the lines below."""
    return f"[{tone}] {heading}" + (f"\n{body}" if body else "")
