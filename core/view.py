"""One description of a table, rendered by both faces.

The core describes what a registry, a trace or a policy comparison *contains* as a `TableView`;
the CLI turns it into a rich table (`routerlab.cli.render`) and Jupyter shows it through
`_repr_html_` below. Neither renderer decides what the columns mean, so the terminal and the
notebook can never disagree. The HTML is built from the standard library only: the core must not
import IPython.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Cell = str | int | float | bool | None


@dataclass(frozen=True)
class TableView:
    """A titled table: column names, rows of plain cells, an optional caption under it.

    `styles` maps a row index to a style word (`"added"`, `"removed"`, `"error"`, `"muted"`)
    that each renderer translates in its own way (colour in rich, a CSS class in HTML).
    """

    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[Cell]]
    caption: str = ""
    styles: dict[int, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (`--json` in the CLI)."""
        return {
            "title": self.title,
            "columns": list(self.columns),
            "rows": [list(r) for r in self.rows],
            "caption": self.caption,
        }

    def _repr_html_(self) -> str:
        return to_html(self)


class Viewable:
    """Mixin for core objects that describe themselves as a `TableView`.

    Jupyter shows such an object as its table (`_repr_html_`), and the CLI renders the same
    `view()` with rich, so a notebook cell `rt.trace` and `routerlab simulate --trace` agree.
    """

    __slots__ = ()

    def view(self) -> TableView:
        raise NotImplementedError

    def _repr_html_(self) -> str:
        return to_html(self.view())


_HTML_STYLE = {
    "added": "background: rgba(46,160,67,.18)",
    "removed": "background: rgba(248,81,73,.18); text-decoration: line-through",
    "error": "background: rgba(248,81,73,.28); font-weight: bold",
    "muted": "opacity: .6",
}


def format_cell(value: Cell) -> str:
    """How a cell reads as text, the same in every renderer."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def to_html(view: TableView) -> str:
    """An HTML table that reads well in JupyterLab's light and dark themes (no fixed colours
    for text, only translucent backgrounds)."""
    # Left-aligned and top-aligned cells: the cells hold words (ops, panic texts), and
    # JupyterLab's stylesheet would otherwise right-align them.
    cell = "style='text-align:left;vertical-align:top'"
    head = "".join(f"<th {cell}>{html.escape(c)}</th>" for c in view.columns)
    body = []
    for i, row in enumerate(view.rows):
        style = _HTML_STYLE.get(view.styles.get(i, ""), "")
        cells = "".join(f"<td {cell}>{html.escape(format_cell(c))}</td>" for c in row)
        body.append(f"<tr style='{style}'>{cells}</tr>")
    caption = f"<b>{html.escape(view.title)}</b>"
    foot = f"<div style='opacity:.75'>{html.escape(view.caption)}</div>" if view.caption else ""
    empty = "<tr><td colspan='99'><i>(empty)</i></td></tr>" if not view.rows else ""
    return (
        f"<div class='routerlab-table'>{caption}<table><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}{empty}</tbody></table>{foot}</div>"
    )
