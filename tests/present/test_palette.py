"""There is one palette (`routerlab.present.palette`), and it says how every style word looks.

The scan below reads every Python module of the model and the faces (`src/`, `cli/`, `core/`,
`exercises/`) and finds colour written anywhere but in the palette: hex colours, `rgb(`/`rgba(`,
a rich colour used as a style or in markup, a CSS colour name after `color:`/`background:`/
`border:`, or a raw ANSI escape. It is itself tested on sources that break each rule.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from rich.color import ANSI_COLOR_NAMES
from rich.errors import StyleSyntaxError
from rich.style import Style

from routerlab.present import palette

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ["src", "cli", "core", "exercises"]
PALETTE_FILE = ROOT / "src" / "routerlab" / "present" / "palette.py"

_HEX = re.compile(r"#[0-9a-fA-F]{6}(?:[0-9a-fA-F]{2})?\b")
_FUNCTION = re.compile(r"\b(?:rgba?|hsla?)\(")
_NAMES = "|".join(sorted(ANSI_COLOR_NAMES, key=len, reverse=True))
_CSS_NAMED = re.compile(rf"(?:color|background|border[-a-z]*)\s*:[^;'\"{{]*?\b(?:{_NAMES})\b")
_MARKUP = re.compile(r"\[/?([a-z0-9_ ]+)\]")


def _coloured_style(text: str) -> bool:
    """Whether `text`, read as a rich style, sets a colour (`"green"`, `"bold on red"`)."""
    try:
        style = Style.parse(text.strip())
    except (StyleSyntaxError, ValueError):
        return False
    # "default" is the terminal's own colour, i.e. none chosen (and a word TOML keys use)
    chosen = [c for c in (style.color, style.bgcolor) if c is not None and not c.is_default]
    return bool(text.strip()) and bool(chosen)


def colours_in(source: str) -> list[str]:
    """Every colour written in one module's string constants (docstrings included)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        text = node.value
        found += _HEX.findall(text) + _FUNCTION.findall(text) + _CSS_NAMED.findall(text)
        found += [f"[{m}]" for m in _MARKUP.findall(text) if _coloured_style(m)]
        if _coloured_style(text):
            found.append(text)
        if "\x1b[" in text:
            found.append(repr(text))
    return found


def _modules() -> list[Path]:
    return sorted(p for folder in SCANNED for p in (ROOT / folder).rglob("*.py")
                  if ".venv" not in p.parts and p != PALETTE_FILE)


def test_no_module_but_the_palette_writes_a_colour() -> None:
    modules = _modules()
    assert len(modules) > 50  # the scan really reads the tree
    offenders = {str(p.relative_to(ROOT)): found for p in modules
                 if (found := colours_in(p.read_text(encoding="utf-8")))}
    assert not offenders, f"colours outside routerlab/present/palette.py: {offenders}"


@pytest.mark.parametrize("source", [
    'STYLE = "background: rgba(46,160,67,.18)"',
    'PALETTE = ["#3b82f6"]',
    'console.print(text, style="bold red")',
    'BORDER = {"ok": "green"}',
    'console.print("[yellow]warning:[/yellow] x")',
    'f"<div style=\'color: red\'>{x}</div>"',
    'f"<div style=\'border-left:3px solid {w}; background:hsl(0, 50%, 50%)\'>"',
    'LINE = "\\x1b[31m✗ wrong\\x1b[0m"',
    'def f():\n    """Our green is #10b981."""',
])
def test_the_scan_finds_each_kind_of_colour(source: str) -> None:
    assert colours_in(source), source


@pytest.mark.parametrize("source", [
    'style = rich_style("heading", "ok")',
    'TONES = {"ok": "ok", "refused": "warn"}',
    'ids = f"#{i}"; label = "#12"',
    'console.print("[bold]title[/bold]")',
    'word = "moves"; status = "added"',
])
def test_the_scan_leaves_style_words_and_ids_alone(source: str) -> None:
    assert colours_in(source) == []


def test_the_palette_itself_is_whole() -> None:
    """Every style word has a terminal style, and tinted words have a CSS background."""
    assert set(palette.LOOKS) >= {"added", "removed", "error", "muted", "ok", "info", "warn"}
    for word, look in palette.LOOKS.items():
        assert palette.rich_style(word) == look.rich and _parses(look.rich), word
        if look.alpha:
            assert palette.background(word).startswith("background:rgba("), word
    assert palette.rich_style("heading", "ok") == "bold green"
    assert palette.rich_style("no such word", "") == "" and palette.css("") == ""
    assert palette.GREEN.tint(0.5) == "rgba(16,185,129,0.5)"
    assert palette.rule("error") == palette.RED.hex and palette.rule("muted") == palette.GREY.hex
    assert palette.css("removed") == "background:rgba(239,68,68,0.18);text-decoration:line-through"
    assert palette.PLOT_COLOURS[:4] == [palette.BLUE.hex, palette.AMBER.hex, palette.GREEN.hex,
                                        palette.RED.hex]


def _parses(style: str) -> bool:
    Style.parse(style)
    return True
