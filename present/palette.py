"""THE palette: every colour RouterLab shows, in the terminal, in HTML and in plots.

Colours are named once here, as hues with their terminal twin; everything else asks for a *style
word* (`"added"`, `"removed"`, `"error"`, `"muted"`, `"ok"`, `"info"`, `"warn"`, `"heading"`) and
gets the rich style or the CSS for it. A test keeps colour literals out of every other module, so
the terminal, the notebooks and the exercise pages cannot drift apart again.

The hues are of mid lightness and HTML uses them as translucent tints or thin rules, never as text
colour: text keeps the theme's own colour, which is what makes one palette read on JupyterLab's
light and dark themes alike.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hue:
    """One colour: its solid hex value and the terminal colour name that stands for it."""

    hex: str
    terminal: str

    def tint(self, alpha: float) -> str:
        """The hue as a translucent CSS background (`rgba(...)`) over either theme."""
        red, green, blue = (int(self.hex[i:i + 2], 16) for i in (1, 3, 5))
        return f"rgba({red},{green},{blue},{alpha:g})"


BLUE = Hue("#3b82f6", "blue")
AMBER = Hue("#f59e0b", "yellow")
GREEN = Hue("#10b981", "green")
RED = Hue("#ef4444", "red")
PURPLE = Hue("#a855f7", "magenta")
CYAN = Hue("#06b6d4", "cyan")
PINK = Hue("#ec4899", "bright_magenta")
GREY = Hue("#8c8c8c", "bright_black")

PLOT_COLOURS = [h.hex for h in (BLUE, AMBER, GREEN, RED, PURPLE, CYAN, PINK)]
"""The colour cycle of plots, in this order (a series keeps its colour across notebooks)."""
INK = "#707070"
"""Text, ticks, spines and grid of plots, on a transparent figure: the grey with the most
contrast on both JupyterLab themes at once, 4.9:1 on the light one's white and 3.8:1 on the dark
one's #111111 (the mid grey before it, #8c8c8c, read at 3.4:1 on white: pale)."""


@dataclass(frozen=True)
class Look:
    """How one style word looks. In a terminal: rich attributes (`bold`, `strike`, `dim`) and the
    hue's terminal colour. In HTML: a background of `hue` tinted at `alpha`, a rule (border) of
    `hue` (grey without one), and any extra CSS declarations."""

    hue: Hue | None = None
    alpha: float = 0.0
    attrs: str = ""
    css: str = ""

    @property
    def rich(self) -> str:
        return " ".join(filter(None, (self.attrs, self.hue.terminal if self.hue else "")))


LOOKS: dict[str, Look] = {
    "added": Look(GREEN, .18),
    "removed": Look(RED, .18, "strike", "text-decoration:line-through"),
    "error": Look(RED, .2, "bold", "font-weight:bold"),
    "ok": Look(GREEN, .16),
    "info": Look(BLUE, .14),
    "warn": Look(AMBER, .2),
    "muted": Look(None, 0.0, "dim", "opacity:.7"),
    "heading": Look(None, 0.0, "bold", "font-weight:bold"),
}
"""Every style word the model and the faces use; any other word (or `""`) looks plain."""


def look(word: str) -> Look:
    """The look of a style word."""
    return LOOKS.get(word, _PLAIN)


_PLAIN = Look()


def rich_style(*words: str) -> str:
    """The rich style for one or more style words (`rich_style("heading", "ok")`: bold green)."""
    return " ".join(filter(None, (look(w).rich for w in words)))


def background(word: str) -> str:
    """The CSS background of a box in this style (`""` for a word without a tint)."""
    shown = look(word)
    return f"background:{shown.hue.tint(shown.alpha)}" if shown.hue and shown.alpha else ""


def css(word: str) -> str:
    """CSS declarations for a table row in this style: its background and extra declarations."""
    return ";".join(filter(None, (background(word), look(word).css)))


def rule(word: str) -> str:
    """The solid colour of a border or left rule in this style (grey for a word without a hue)."""
    return (look(word).hue or GREY).hex


def tint(word: str, alpha: float) -> str:
    """This style's hue (grey without one) at another opacity: a bar's fill, a faint border."""
    return (look(word).hue or GREY).tint(alpha)
