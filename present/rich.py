"""Terminal rendering with rich: a console factory and `TableView` → rich renderable.

The terminal twin of `routerlab.present.html.table`: same columns, same cell text
(`format_cell`), row styles from the one palette. `--plain` and `NO_COLOR` give a console
without colour. A view too wide for the terminal turns sideways, or into one record per row,
rather than cutting a word (least of all the ids a reader types back into the next command).
"""

from __future__ import annotations

import os
import textwrap
from weakref import WeakKeyDictionary

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ..core import TableView, format_cell
from .legend import trace_legend
from .palette import rich_style
from .terminal import escape_control


def make_console(plain: bool = False, stderr: bool = False) -> Console:
    """A console that honours `--plain` and the `NO_COLOR` convention."""
    no_color = plain or bool(os.environ.get("NO_COLOR"))
    return Console(no_color=no_color, highlight=not no_color, stderr=stderr,
                   emoji=not plain, soft_wrap=False)


def to_rich(view: TableView) -> RenderableType:
    """The view as a rich table with its title, columns, rows and caption.

    A view too wide for the terminal (a policy comparison at 80 columns) is shown transposed,
    one column per row, when that fits better: squeezing ten columns into 80 characters would
    cut the very words a reader needs.
    """
    return _FittedTable(view)


_SLACK = 4
"""Characters kept free: rich needs a little more than the sum of the minimum widths."""
_SIDEWAYS_FROM = 6
"""Only a view this wide turns sideways; a narrower one (a registry) reads better wrapped."""


class _FittedTable:
    """Decides the table's orientation at render time, when the console width is known."""

    def __init__(self, view: TableView) -> None:
        self.view = view

    def _choose(self, console: Console, options: ConsoleOptions) -> Table:
        max_width = options.max_width
        room = max_width - _SLACK
        views = [self.view]
        if len(self.view.columns) >= _SIDEWAYS_FROM:
            views.append(_transposed(self.view))
        for view in views:  # the first orientation that fits and shows every word whole
            if _min_width(view) <= room:
                table = _table(view)
                if _whole(console, options, table, view):
                    return table
        if len(self.view.columns) > 2 and self.view.rows:
            return _records(self.view, max_width)  # one record per row, values wrap at spaces
        # Nothing narrower to turn to: headers wrap, prose columns fold.
        return _table(min(views, key=lambda v: _min_width(v, tight=True)), tight=True)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self._choose(console, options)
        if self.view.caption:  # under the table, but as wide as the terminal, not the table
            yield safe(self.view.caption, style=rich_style("muted"))
        yield from _legend(self.view, console)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self._choose(console, options))


_EXPLAINED: WeakKeyDictionary[Console, set[str]] = WeakKeyDictionary()
"""The legend terms each console has shown: a command printing a trace per step explains each
word once, the first time it appears, rather than under every step."""


def _legend(view: TableView, console: Console) -> RenderResult:
    """Under a trace table, what its columns and kinds of event mean, for the terms this console
    has not explained yet."""
    seen = _EXPLAINED.setdefault(console, set())
    terms = [(term, text) for term, text in trace_legend(view) if term not in seen]
    if not terms:
        return
    seen.update(term for term, _ in terms)
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, style=rich_style("heading"))
    grid.add_column()
    for term, text in terms:
        grid.add_row(safe(term), safe(text))
    yield safe("How to read this trace:", style=rich_style("muted"))
    yield grid


def _column_widths(view: TableView, tight: bool = False) -> list[tuple[bool, int]]:
    """Per column: is it atomic (short single words), and the width it must not go below.

    An atomic column never wraps its cells. `tight` is for a table that does not fit: then a
    header of several words wider than its cells ("mean hint level") goes on several lines."""
    widths = []
    for i, column in enumerate(view.columns):
        cells = [format_cell(row[i]) for row in view.rows]
        # A column of short single words (ids, devices, statuses) is what a reader types back
        # into the next command: never wrap or cut it; let the prose columns wrap instead.
        atomic = all(len(c) <= 24 and not any(ch.isspace() for ch in c) for c in cells)
        if atomic:
            header = column.split() if tight else [column]
            width = max([*map(len, header or [""]), *map(len, cells)])
        else:  # prose wraps at spaces, with room for a long word (up to 16 characters)
            width = min(16, max(len(w) for text in [column, *cells] for w in text.split() or [""]))
        widths.append((atomic, width))
    return widths


def _whole(console: Console, options: ConsoleOptions, table: Table, view: TableView) -> bool:
    """Whether `table`, rendered at this width, shows every word of the view whole (a word
    longer than the terminal cannot be, and is not asked for). The estimate of `_min_width` lets
    a prose column be narrower than its longest word; this is the check that it was not."""
    width = options.max_width
    lines = console.render_lines(table, options.update_width(width), pad=False)
    shown = "\n".join("".join(segment.text for segment in line) for line in lines)
    words = {w for text in [*view.columns, *(format_cell(c) for row in view.rows for c in row)]
             for w in text.split() if len(w) <= width - 2 * _SLACK}
    return all(word in shown for word in words)


def _min_width(view: TableView, tight: bool = False) -> int:
    return sum(width + 3 for _, width in _column_widths(view, tight)) + 1


def _transposed(view: TableView) -> TableView:
    """Columns become rows: the first column's cells head the new columns."""
    heads = [view.columns[0], *(format_cell(row[0]) for row in view.rows)]
    rows = [[name, *(row[j] for row in view.rows)] for j, name in enumerate(view.columns)][1:]
    return TableView(view.title, heads, rows, view.caption)


def _records(view: TableView, max_width: int) -> Table:
    """A view too wide either way, as records: for each row, its cells one per line beside their
    column's name, a blank line between rows, no borders (they would take the room a long value
    needs). Where the longest word does not fit beside the names, each value goes under its
    name instead. Only a word longer than the terminal folds."""
    names = max(len(c) for c in view.columns)
    longest = max((len(w) for row in view.rows for c in row for w in format_cell(c).split()),
                  default=0)
    beside = names + 1 + longest <= max_width
    table = Table(title=safe(view.title), title_justify="left", show_header=False, box=None,
                  pad_edge=False, padding=(0, 1) if beside else 0)
    table.add_column(no_wrap=True, style=rich_style("heading"))
    if beside:
        table.add_column(overflow="fold")
    for i, row in enumerate(view.rows):
        if i:
            table.add_row(*[""] * len(table.columns))
        style = rich_style(view.styles.get(i, "")) or None
        for column, cell in zip(view.columns, row, strict=True):
            if beside:
                table.add_row(safe(column), safe(format_cell(cell)), style=style)
            else:
                table.add_row(safe(column))
                table.add_row(Padding(safe(format_cell(cell)), (0, 0, 0, 2)), style=style)
    return table


def _table(view: TableView, tight: bool = False) -> Table:
    table = Table(title=safe(view.title), title_justify="left")
    for column, (atomic, width) in zip(view.columns, _column_widths(view, tight), strict=True):
        if atomic:  # its header wraps by hand: rich would wrap the cells too
            table.add_column(safe("\n".join(textwrap.wrap(column, width)) or column),
                             no_wrap=True, min_width=width)
        elif not tight:
            table.add_column(safe(column), min_width=width)
        else:
            table.add_column(safe(column), overflow="fold")
    for i, row in enumerate(view.rows):
        style = rich_style(view.styles.get(i, "")) or None
        table.add_row(*(safe(format_cell(c)) for c in row), style=style)
    return table


def safe(text: str, style: str = "") -> Text:
    """User or scenario text for the terminal: no markup parsed, control characters escaped
    (`routerlab.present.terminal`), so a shared scenario cannot clear or spoof the screen."""
    return Text(escape_control(text), style=style)


def ansi(text: str, *words: str) -> str:
    """`text` in the style words' colours as ANSI escape codes, for places that print raw terminal
    text rather than through a console (IPython's short tracebacks)."""
    console = Console(force_terminal=True, color_system="standard",
                      highlight=False, width=max(80, len(text) + 1))
    with console.capture() as captured:
        console.print(Text(text, style=rich_style(*words)), end="", soft_wrap=True)
    return captured.get()
