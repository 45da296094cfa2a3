"""`routerlab tour`: the guided story of moving a quantized tensor, paced for a terminal.

The story (steps, sentences, results, tables) is `routerlab.teaching.tour.tour()`; this module only
renders each step as a rich panel and waits for Enter between steps, unless `--no-pause` is given
or stdin is not a terminal (`./run tour` passes `--no-pause` then too). When it waits, a step
taller than the terminal is paged: it stops with a "more" prompt at each screenful.
"""

import sys
from functools import partial
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from ...teaching.tour import TourStep

_TONE = {"ok": "ok", "refused": "warn", "panic": "error", "info": "info"}
"""The palette's style word for each outcome of a step (its panel's border)."""


def register(app: typer.Typer) -> None:
    app.command(help="A guided tour: move a quantized tensor under every policy (start here).")(
        tour
    )


def tour(
    no_pause: Annotated[bool, typer.Option("--no-pause", help="Do not wait for Enter between "
                                                              "steps.")] = False,
    plain: Annotated[bool, typer.Option("--plain", help="No colour.")] = False,
) -> None:
    from ...invocation import command_prefix
    from ...present.palette import rich_style
    from ...teaching.tour import TOTAL_STEPS
    from ...teaching.tour import tour as story
    from ..pager import paged
    from ..render import make_console

    console = make_console(plain)
    pause = not no_pause and _on_terminal()

    def prompt(text: str) -> str:
        return f"[{rich_style('muted')}]{text}[/] " if not plain else f"{text} "

    for step in story(command_prefix()):
        if not pause:
            render_step(console, step, TOTAL_STEPS, plain)
            continue
        # On a terminal a step longer than the screen stops at each screenful, so that its
        # explanation is read before it scrolls away (issue 29: step 2 was 49 lines).
        paged(console, partial(render_step, step=step, total=TOTAL_STEPS, plain=plain),
              partial(console.input, prompt("-- more: Enter (Ctrl-C to stop) --")))
        if step.number < TOTAL_STEPS:
            console.input(prompt("Enter to continue (Ctrl-C to stop)"))


def _on_terminal() -> bool:
    """Whether a person can press Enter: only then does the tour wait, and page."""
    return sys.stdin.isatty()


def render_step(console: "Console", step: "TourStep", total: int, plain: bool) -> None:
    """One step: a panel with the text, the code that ran and the error, then its tables."""
    from rich.columns import Columns
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    from ...present.palette import rich_style
    from ..render import print_code, to_rich

    parts: list = [Text(step.text)]
    if step.error:
        where = "" if step.source is None else f"\n  at {step.source}"
        style = "" if plain else rich_style("error")
        parts += [Text(""), Text(f"{step.error}{where}", style=style)]
    border = "none" if plain else (rich_style(_TONE.get(step.outcome, "")) or "none")
    console.print()
    console.print(Panel(Group(*parts), title=f"Step {step.number}/{total}: {step.title}",
                        title_align="left", border_style=border))
    if step.code:  # below the panel, whole: a narrow panel would wrap it mid-expression
        print_code(console, step.code, plain)
    registries = [to_rich(v) for v in step.views if v.title.startswith("Registry ")]
    for view in step.views:
        if not view.title.startswith("Registry "):
            console.print(to_rich(view))
    if registries:
        console.print(Columns(registries, padding=(0, 4)))
