"""What a notebook holds and, once executed, shows, counted the way `expectations.py` states it.

The counts are over the cells' top-level outputs, as JupyterLab shows them: an output that carries
a widget view is a widget (a stepper, or a slider with its plot), and its static fallback (the
HTML or image beside the widget view in the same output) is not counted as a table or a figure,
since JupyterLab shows the widget instead. The browser test counts the page the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from routerlab.notebook.stepping import STEPPER_CLASS

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
TABLE = re.compile(r"<table\b(?:(?!</table>).)*?<td\b", re.S)
"""A table with at least one cell: `<table></table>` is not a table shown."""
CHECK = re.compile(r"""lab\.check\(\s*["']([\w.-]+)["']""")
SVG = re.compile(r"<svg\b")


def count_tables(outputs: Iterable[Mapping[str, Any]]) -> int:
    """HTML tables (with a cell) in the outputs that are not widgets."""
    return sum(len(TABLE.findall(_html(o))) for o in outputs if not _is_widget(o))


def count_figures(outputs: Iterable[Mapping[str, Any]]) -> int:
    """PNG and SVG images, and SVG drawn inline in HTML, in the outputs that are not widgets."""
    total = 0
    for output in outputs:
        data = output.get("data", {})
        if _is_widget(output):
            continue
        total += ("image/png" in data) + ("image/svg+xml" in data) + len(SVG.findall(_html(output)))
    return total


def count_widgets(outputs: Iterable[Mapping[str, Any]],
                  state: Mapping[str, Any]) -> tuple[int, int]:
    """(steppers, sliders) among the widget views shown: a stepper is a box with
    `STEPPER_CLASS`; a slider is any slider model shown outside a stepper. `state` is the
    notebook's saved widget state (model id → {"model_name", "state"})."""
    steppers = sliders = 0
    for output in outputs:
        view = output.get("data", {}).get(WIDGET_VIEW)
        if not view:
            continue
        models = list(_reachable(view["model_id"], state))
        if STEPPER_CLASS in state.get(view["model_id"], {}).get("state", {}).get(
                "_dom_classes", []):
            steppers += 1
        else:
            sliders += sum(state[m]["model_name"].endswith("SliderModel") for m in models)
    return steppers, sliders


def widget_state(notebook: Mapping[str, Any]) -> Mapping[str, Any]:
    """The widget models nbclient saved in the notebook's metadata (empty without widgets)."""
    return notebook.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})


def implement_checkpoints(cells: Iterable[Mapping[str, Any]]) -> list[tuple[int, int, str]]:
    """The implement checkpoints, by their markers (not by cell index: the notebooks change):
    (index of the `# YOUR CODE` cell, index of the code cell after it, which runs
    `lab.check("id", ...)`, and that id)."""
    code = [(i, _source(c)) for i, c in enumerate(cells) if c.get("cell_type") == "code"]
    found = []
    for (index, source), (after, check) in zip(code, code[1:], strict=False):
        if source.lstrip().startswith("# YOUR CODE") and (match := CHECK.search(check)):
            found.append((index, after, match.group(1)))
    return found


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _reachable(model_id: str, state: Mapping[str, Any]) -> Iterable[str]:
    """`model_id` and every model its `children` (and theirs) name."""
    if model_id not in state:
        return
    yield model_id
    for child in state[model_id].get("state", {}).get("children", []):
        yield from _reachable(child.removeprefix("IPY_MODEL_"), state)


def _is_widget(output: Mapping[str, Any]) -> bool:
    return WIDGET_VIEW in output.get("data", {})


def html_text(output: Mapping[str, Any]) -> str:
    """The text an output's HTML shows, its tags left out."""
    return re.sub(r"<[^>]+>", " ", _html(output))


def _html(output: Mapping[str, Any]) -> str:
    html = output.get("data", {}).get("text/html", "")
    return "".join(html) if isinstance(html, list) else html
