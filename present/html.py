"""HTML for Jupyter and the exercise notebooks: tables, callouts, blocks, bars.

Built from the standard library only, with the one palette (`routerlab.present.palette`): tinted
backgrounds and solid rules, never a fixed text colour, so every piece reads in JupyterLab's light
and dark themes. Every text goes through `html.escape`: a scenario title or a student's output is
shown, never interpreted.
"""

from __future__ import annotations

import html
from typing import Any

from ..core import TableView, Viewable, format_cell
from .legend import trace_legend
from .palette import background, css, rule, tint

_CELL = "style='text-align:left;vertical-align:top'"
"""Left- and top-aligned cells: they hold words (ops, panic texts), which JupyterLab's stylesheet
would otherwise align right."""
_PRE = "white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere"
"""Preformatted text that wraps at spaces and breaks a token only when it cannot fit a line (a
long path): JupyterLab's output style (`word-break: break-all`) would cut every word."""


def table(view: TableView) -> str:
    """A `TableView` as an HTML table: title, columns, rows in their style, caption under it."""
    head = "".join(f"<th {_CELL}>{html.escape(c)}</th>" for c in view.columns)
    body = []
    for i, row in enumerate(view.rows):
        cells = "".join(f"<td {_CELL}>{html.escape(format_cell(c))}</td>" for c in row)
        body.append(f"<tr style='{css(view.styles.get(i, ''))}'>{cells}</tr>")
    title = f"<b>{html.escape(view.title)}</b>"
    foot = f"<div style='{css('muted')}'>{html.escape(view.caption)}</div>" if view.caption else ""
    empty = "<tr><td colspan='99'><i>(empty)</i></td></tr>" if not view.rows else ""
    return (
        f"<div class='routerlab-table'>{title}<table><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}{empty}</tbody></table>{foot}{legend(view)}</div>"
    )


def legend(view: TableView) -> str:
    """Under a trace table, what its columns and its kinds of event mean (folded: a notebook
    shows many traces); nothing under any other table."""
    terms = trace_legend(view)
    if not terms:
        return ""
    items = "".join(f"<dt style='font-weight:bold'>{html.escape(term)}</dt>"
                    f"<dd style='margin:0 0 .2em 1.5em'>{html.escape(text)}</dd>"
                    for term, text in terms)
    return (f"<details class='routerlab-legend' style='margin:.2em 0;{css('muted')}'>"
            f"<summary>How to read this trace</summary><dl style='margin:.3em 0'>{items}</dl>"
            "</details>")


def viewable(obj: Viewable) -> str:
    """A core object that describes itself as a table (`obj.view()`), as that table."""
    return table(obj.view())


def callout(tone: str, heading: str, body: str = "", pre: bool = False) -> str:
    """A box tinted in `tone` with a solid left rule and a bold heading; `pre` keeps the body's
    lines and spaces (panic messages, byte dumps)."""
    shown = html.escape(body)
    if pre:
        shown = f"<pre style='margin:.3em 0 0 0;{_PRE}'>{shown}</pre>"
    elif shown:
        shown = f"<div style='margin-top:.25em'>{shown}</div>"
    style = (f"{background(tone)};border-left:4px solid {rule(tone)};padding:.5em .8em;"
             "margin:.3em 0;border-radius:3px")
    return (f"<div class='routerlab-callout routerlab-{html.escape(tone)}' style='{style}'>"
            f"<b>{html.escape(heading)}</b>{shown}</div>")


def bar(text: str, tone: str) -> str:
    """One bold line on a band tinted in `tone` (a check's verdict)."""
    return (f"<div style='padding:4px 8px;{background(tone)};font-weight:bold'>"
            f"{html.escape(text)}</div>")


def block(title: str, text: str, tone: str = "") -> str:
    """A titled preformatted text with a left rule in `tone` (a failure, a program's output)."""
    style = f"border-left:3px solid {rule(tone)}" if tone else ""
    if tone == "muted":  # secondary text fades; an error keeps full strength, only its rule is red
        style += f";{css('muted')}"
    return (f"<div style='margin:6px 0;padding-left:6px;{style}'><b>{html.escape(title)}</b>"
            f"<pre style='{_PRE};margin:2px 0'>{html.escape(text)}</pre></div>")


def progress(done: int, total: int) -> str:
    """A 300-pixel bar filled in proportion to `done / total`."""
    width = 0 if not total else round(100 * done / total)
    return (f"<div style='width:300px;height:10px;border:1px solid {tint('muted', .6)}'>"
            f"<div style='width:{width}%;height:100%;background:{tint('ok', .7)}'></div></div>")


STEP_STYLE = (
    "<style>.routerlab-step table{border-collapse:collapse;margin:.3em 0 .8em 0}"
    ".routerlab-step th,.routerlab-step td{padding:.15em .7em;text-align:left;"
    f"border-bottom:1px solid {tint('muted', .35)}}}</style>"
)
"""Widget HTML does not get JupyterLab's table styles: the step-through brings its own."""


def html_of(obj: Any) -> str:
    """The HTML a notebook shows for `obj`: a table for a `TableView` or anything with a
    `.view()`, the object's own `_repr_html_`, else its text, preformatted."""
    if isinstance(obj, TableView):
        return table(obj)
    if hasattr(obj, "_repr_html_"):
        rendered = obj._repr_html_()
        if rendered is not None:
            return str(rendered)
    if callable(getattr(obj, "view", None)):
        return html_of(obj.view())
    return f"<pre>{html.escape(str(obj))}</pre>"
