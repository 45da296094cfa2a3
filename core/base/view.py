"""One description of a table, rendered by every face.

The core describes what a registry, a trace or a policy comparison *contains* as a `TableView`:
data only, with no renderer attached (as rich keeps renderers out of the data it renders). How it
looks is `routerlab.present`'s job: `present.rich` for the CLI, `present.html` for Jupyter (the
notebook package registers it as IPython's HTML formatter for `TableView` and `Viewable`),
`present.text` for plain text. Neither renderer decides what the columns mean, so the terminal and
the notebook can never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Cell = str | int | float | bool | None


@dataclass(frozen=True)
class TableView:
    """A titled table: column names, rows of plain cells, an optional caption under it.

    `styles` maps a row index to a style word (`"added"`, `"removed"`, `"error"`, `"muted"`);
    the one palette (`routerlab.present.palette`) says how each word looks in each renderer.
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


class Viewable:
    """Mixin for core objects that describe themselves as a `TableView`.

    Every face shows such an object as its `view()`: Jupyter through the formatter that
    `routerlab.notebook` registers, the CLI through `routerlab.present.rich`, so a notebook cell
    `rt.trace` and `routerlab simulate --trace` agree.
    """

    __slots__ = ()

    def view(self) -> TableView:
        raise NotImplementedError


def format_cell(value: Cell) -> str:
    """How a cell reads as text, the same in every renderer."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
