"""A screenful at a time: what `routerlab tour` prints between two Enter prompts.

Rich's own pager hands the text to `less`, which takes the screen over and loses the colour on
some terminals; this one prints through the same console and waits for Enter after each
screenful, keeping one line for the prompt. Output that is not a terminal is never paged (the
caller decides).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console

PROMPT_LINES = 1
"""Lines a screenful leaves for the prompt under it."""


def paged(console: Console, render: Callable[[Console], None], more: Callable[[], object]) -> int:
    """Print what `render` prints on `console`, calling `more` (a prompt that waits) after each
    screenful but the last; return the number of screenfuls."""
    with console.capture() as captured:
        render(console)
    lines = captured.get().splitlines()
    room = max(1, console.height - PROMPT_LINES - 1)  # the Enter prompt after the step, too
    pages = [lines[i:i + room] for i in range(0, len(lines), room)] or [[]]
    for number, page in enumerate(pages, start=1):
        console.file.write("".join(f"{line}\n" for line in page))
        console.file.flush()
        if number < len(pages):
            more()
    return len(pages)
