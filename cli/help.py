"""How every `--help` reads: one rule for the whole app, applied when the app is built.

Typer 0.29 prints a type beside every parameter: `<bool>` beside each flag (which takes no value,
so the word only misleads) and `<list[str]>` beside a repeatable option (Python's annotation, not
what the user types). A flag shows nothing there; a repeatable option shows its element's type
(`<str>`, `<path>`), and its help says "repeat for more". A command's help text is reflowed per
paragraph, so a docstring's source line breaks do not leave ragged lines in `exercises --help`.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

_LIST = re.compile(r"^<list\[(.+)\]>(\.\.\.)?$")


def tidy(app: typer.Typer) -> None:
    """Give `app`, its commands and its sub-apps (at any depth) the tidy help classes."""
    if not isinstance(app.info.cls, type) or app.info.cls is TyperGroup:  # Typer's default
        app.info.cls = TidyGroup
    for command in app.registered_commands:
        if command.cls in (None, TyperCommand):
            command.cls = TidyCommand
    for group in app.registered_groups:
        if group.typer_instance is not None:
            tidy(group.typer_instance)


def reflow(text: str | None) -> str | None:
    """Each paragraph of a help text on one line (the terminal wraps it), paragraphs kept."""
    if not text:
        return text
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n"))


def _tidy_params(params: list[Any], ctx: Any) -> list[Any]:
    for param in params:
        if getattr(param, "_routerlab_tidy", False):
            continue
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            param.metavar = ""
        else:
            shown = _LIST.match(param.display_type_rich(ctx) or "")
            element = f"<{shown.group(1).lower()}>" if shown else None
            if element and param.param_type_name == "option" and param.metavar is None:
                param.metavar = element
            elif element:  # an argument shows its type beside its name, not as its metavar
                param.display_type_rich = lambda ctx, shown=element: shown
        param._routerlab_tidy = True
    return params


class TidyCommand(TyperCommand):
    """A command whose help follows this module's rule."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = reflow(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _tidy_params(super().get_params(ctx), ctx)


class TidyGroup(TyperGroup):
    """A group (`routerlab`, `exercises`, `teacher`) whose help follows this module's rule."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = reflow(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _tidy_params(super().get_params(ctx), ctx)
