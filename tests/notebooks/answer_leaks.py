"""Where a predict checkpoint's answer shows before its reveal: THE rule both notebook tests apply.

A checkpoint is worth nothing if the cells above its locked reveal already state the answer. This
module compares *values* and *choice names*, never prose: the model's own answers
(`PredictSuite.oracle`, the values the check compares with) are turned into the forms a cell
would show them in, and every cell from the top of the notebook to the checkpoint's first
`lab.reveal("id", ...)`, that one included (its code shows while it is locked), is searched: its
source and (once executed) its outputs.

- a list, tuple or dict of two or more items: its literal, whatever the spacing and quotes
  (`[0, 2]`, `["ReadOnly", "ReadWrite"]`);
- a whole number of two digits or more (`8000`, `8,000`), and a fraction (`0.625`, to the
  places a learner would write);
- a choice name (a string answer such as `"hang"` or `"q4s:block=64"`): written as the string a
  learner would type, in quotes, in Markdown or in an output (a string in code is code, and a
  name in backticks is the concept the lesson teaches, not a verdict).

The checkpoint's own question (the Markdown cell headed with its id) is left out: it shows the
program's inputs and offers every choice; a value that is one of its inputs (the data a read
returns, a block size it offers) is not searched for at all. Its answer cell is searched (an
example equal to the answer is a leak), except for the choices its comments list. True/False,
small whole numbers and empty lists are left out: they appear in every lesson for other
reasons. `test_structure.py` runs this over the sources, `test_execute.py` over the cells as
executed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from notebook_counts import html_text

REVEAL = re.compile(r"""lab\.reveal\(\s*["']([\w.-]+)["']""")


@cache
def model_answers(exercise_id: str) -> dict[str, Any]:
    """The values a predict checkpoint's check compares with, computed by the model."""
    from routerlab.exercises.catalog import load_catalog
    from routerlab.exercises.checks import suite_for

    return dict(suite_for(load_catalog().get(exercise_id)).oracle())


def marks(value: Any) -> list[re.Pattern[str]]:
    """The patterns that find `value` shown in a cell (empty: not distinctive enough)."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int):
        if abs(value) < 10:
            return []
        plain = re.escape(str(value))
        grouped = re.escape(f"{value:,}")
        return [re.compile(rf"(?<![\w.]){plain}(?![\w]|\.\d)"),
                re.compile(rf"(?<![\w.]){grouped}(?![\w]|\.\d)")]
    if isinstance(value, float):
        if value.is_integer():
            return marks(int(value))
        forms = {f"{value:.{places}f}".rstrip("0").rstrip(".") for places in (2, 3, 4)}
        forms = {f for f in forms if len(f.lstrip("-").replace(".", "").lstrip("0")) >= 2}
        return [re.compile(rf"(?<![\w.]){re.escape(f)}(?![\w]|\d)") for f in sorted(forms)]
    if isinstance(value, str):
        word = re.escape(value)
        return [re.compile(rf"""(["']){word}\1""")]
    if isinstance(value, Mapping):
        if len(value) < 2:
            return []
        return [re.compile(re.escape(_squeeze(json.dumps(value, sort_keys=False))))]
    if isinstance(value, list | tuple) and len(value) >= 2:
        whole = [re.compile(re.escape(_squeeze(json.dumps(list(value)))))]
        return whole + [p for item in value if isinstance(item, float) and not item.is_integer()
                        for p in marks(item)]  # a series shown item by item (0.6 → 0.8 → …)
    return []


def doc_marks(value: Any) -> list[re.Pattern[str]]:
    """The patterns that find `value` in a documentation page, which is stricter about what is
    distinctive than a cell: a page names every choice (the concept it documents), and gives
    line numbers, ranges, block sizes and sizes in every paragraph. So: fractions (each one of a
    numeric list too), list literals, and whole numbers of three digits or more that are not
    part of a range, a line number or a version; never a choice name."""
    if isinstance(value, str | bool) or value is None:
        return []
    if isinstance(value, int):
        if abs(value) < 100:
            return []
        return [re.compile(rf"(?<![\w.:\-#]){p}(?![\w\-]|\.\d)")
                for p in (re.escape(str(value)), re.escape(f"{value:,}"))]
    if isinstance(value, Mapping):
        return marks(value)
    if isinstance(value, list | tuple):
        if len(value) < 2:
            return []
        return marks(value) + [p for item in value if isinstance(item, float)
                               for p in _printed(item)]
    return marks(value) + (_printed(value) if isinstance(value, float) else [])


def _printed(value: float) -> list[re.Pattern[str]]:
    """A float as a command's table prints it (6 significant digits, `1.06667`), besides the
    places a learner writes: a page's console line is run, and its output searched."""
    if value.is_integer():
        return []
    form = f"{value:.6g}"
    if len(form.lstrip("-").replace(".", "").lstrip("0")) < 3:
        return []
    return [re.compile(rf"(?<![\w.]){re.escape(form)}(?![\w]|\d)")]


def doc_leaks(text: str, answers: Mapping[str, Any], question: str = "") -> list[str]:
    """Each answer stated in a documentation page: 'line N: NAME = value (pattern)'. A line is
    searched as written and without its spaces (how literals are compared). A value the
    exercise's own statement (`question`) shows is one of its inputs, not searched for."""
    lines = [(line, _squeeze(line)) for line in text.splitlines()]
    found = []
    for name, value in answers.items():
        if any(p.search(question) or p.search(_squeeze(question)) for p in doc_marks(value)):
            continue
        for pattern in doc_marks(value):
            hit = next((n for n, (line, squeezed) in enumerate(lines, 1)
                        if pattern.search(line) or pattern.search(squeezed)), None)
            if hit is not None:
                found.append(f"line {hit}: {name} = {value!r} ({pattern.pattern})")
                break
    return found


def _squeeze(text: str) -> str:
    """A literal without spaces and with one kind of quote: how both sides are compared."""
    return re.sub(r"\s+", "", text).replace("'", '"')


def cell_text(cell: Mapping[str, Any], source: bool = True) -> str:
    """A cell's source (unless `source` is False) and what its outputs show: printed text, and
    the HTML without its tags where there is HTML (else the plain text)."""
    text = cell.get("source", "")
    parts = ["".join(text) if isinstance(text, list) else text] if source else []
    for output in cell.get("outputs", []):
        text = output.get("text", "")
        parts.append("".join(text) if isinstance(text, list) else text)
        data = output.get("data", {})
        if "text/html" in data:  # what JupyterLab shows; text/plain is then only a repr
            parts.append(html_text(output))
        else:
            plain = data.get("text/plain", "")
            parts.append("".join(plain) if isinstance(plain, list) else plain)
    return "\n".join(parts)


def leaks(cells: list[Mapping[str, Any]], exercise_id: str,
          answers: Mapping[str, Any]) -> list[str]:
    """Each answer of `exercise_id` shown in a cell above its first reveal: 'cell N: NAME'."""
    first_reveal = next((i for i, c in enumerate(cells) if c.get("cell_type") == "code"
                         and exercise_id in REVEAL.findall(cell_text({"source": c["source"]}))),
                        len(cells))
    question = "\n".join(cell_text(c) for c in cells[:first_reveal]
                         if c.get("cell_type") == "markdown" and _asks(c, exercise_id))
    offered = {name for name, value in answers.items() if not isinstance(value, str)
               and any(p.search(_squeeze(question) if isinstance(value, list | tuple | Mapping)
                               else question) for p in marks(value))}
    found = []
    for index, cell in enumerate(cells[:first_reveal + 1]):  # a reveal's own code is visible
        text = cell_text(cell)
        markdown = cell.get("cell_type") == "markdown"
        if markdown and _asks(cell, exercise_id):
            continue  # the question: the program's inputs, and every choice offered
        answer_cell = any(f"{name} = ..." in text for name in answers)
        squeezed = _squeeze(text)
        for name, value in answers.items():
            if name in offered:
                continue  # an input of the question, or one of the choices it offers
            target = squeezed if isinstance(value, list | tuple | Mapping) else text
            if isinstance(value, str):
                if answer_cell:
                    continue  # its comments list the choices
                target = text if markdown else cell_text(cell, source=False)
            for pattern in marks(value):
                if pattern.search(target):
                    found.append(f"cell {index}: {name} = {value!r} ({pattern.pattern})")
                    break
    return found


def _asks(cell: Mapping[str, Any], exercise_id: str) -> bool:
    """Whether a Markdown cell is the checkpoint's question (a heading that names its id)."""
    return bool(re.search(rf"^#+ .*`{re.escape(exercise_id)}`", cell_text(cell), re.M))


def predict_checkpoints(cells: Iterable[Mapping[str, Any]]) -> list[str]:
    """The ids of the predict checkpoints a notebook reveals, in order."""
    from routerlab.exercises.catalog import Kind, load_catalog

    catalog = {e.id: e for e in load_catalog()}
    seen: list[str] = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        for found in REVEAL.findall(cell_text({"source": cell["source"]})):
            if found not in seen and catalog[found].kind is not Kind.IMPLEMENT:
                seen.append(found)
    return seen
