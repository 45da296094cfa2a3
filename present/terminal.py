"""Text from a user (a scenario's title, a label, an error naming a file) made safe to print.

A shared scenario is data, and so is everything it says: an ESC in its title must not clear the
screen, a carriage return must not overwrite a line, a bidi override must not reorder one. Each
such character is shown as its Python escape (`\\x1b`, `\\u202e`); rich markup is never parsed
in this text (the renderers wrap it in `rich.text.Text`). No rich import here: `main()` uses
it on its error path, which must stay light.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 (but tab and newline) and C1 controls, DEL
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings and isolates
    "\ud800-\udfff]"  # lone surrogates (undecodable argv bytes): unprintable, unencodable
)


def escape_control(text: str) -> str:
    """`text` with every terminal control character shown as its escape; tab and newline kept."""
    return _UNSAFE.sub(lambda match: ascii(match.group())[1:-1], text)


MAX_LINE = 1000
"""An error line longer than this (it echoes a huge argument) keeps its start and its end."""


def one_line(text: str) -> str:
    """An error message as exactly one safe line (newlines and tabs become spaces), at most
    `MAX_LINE` characters: a 100 000-character argument is not printed back whole."""
    line = " ".join(escape_control(text).split())
    if len(line) <= MAX_LINE:
        return line
    return f"{line[:MAX_LINE // 2 - 2]} … {line[-(MAX_LINE // 2 - 2):]}"
