"""Turn the core's `TableView`s into rich renderables, and print them or their JSON.

The terminal twin of `TableView._repr_html_`: same columns, same cell text (`format_cell`), the
row styles mapped to colours. `--plain` and `NO_COLOR` give a console without colour.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from routerlab.core.view import TableView, format_cell

_RICH_STYLE = {"added": "green", "removed": "red strike", "error": "bold red", "muted": "dim"}


def make_console(plain: bool = False, stderr: bool = False) -> Console:
    """A console that honours `--plain` and the `NO_COLOR` convention."""
    no_color = plain or bool(os.environ.get("NO_COLOR"))
    return Console(no_color=no_color, highlight=not no_color, stderr=stderr,
                   emoji=not plain, soft_wrap=False)


def to_rich(view: TableView) -> Table:
    """A rich `Table` with the view's title, columns, rows and caption."""
    table = Table(title=view.title, caption=view.caption or None, title_justify="left",
                  caption_justify="left")
    for i, column in enumerate(view.columns):
        cells = [format_cell(row[i]) for row in view.rows]
        # A column of short single words (ids, devices, statuses) is what a reader types back
        # into the next command: never wrap or cut it; let the prose columns wrap instead.
        atomic = all(len(c) <= 24 and not any(ch.isspace() for ch in c) for c in cells)
        width = max([len(column), *map(len, cells)]) if atomic else None
        table.add_column(column, no_wrap=atomic, min_width=width)
    for i, row in enumerate(view.rows):
        style = _RICH_STYLE.get(view.styles.get(i, ""))
        table.add_row(*(Text(format_cell(c)) for c in row), style=style)
    return table


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
