"""Small display helpers for the guided notebooks (and nothing else).

The notebooks are thin: every computation calls `routerlab.core`. This module only decides how
things *look* in Jupyter: the environment banner, panics shown as Burn prints them, a step-through
of a list of frames (an ipywidgets slider that degrades to a static HTML table when widgets are
not rendered), and a plot theme that reads in light and dark JupyterLab themes. It imports
IPython, ipywidgets and matplotlib lazily, inside the functions that need them.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from routerlab.core.view import TableView, to_html

__all__ = [
    "PALETTE", "Callout", "Caught", "Stepper", "banner", "catch_panic", "html_of",
    "plot_theme", "show", "stepper",
]

# Mid-lightness colours: readable on JupyterLab's white and on its near-black dark theme.
PALETTE = ["#3b82f6", "#f59e0b", "#10b981", "#ef4444", "#a855f7", "#06b6d4", "#ec4899"]
INK = "#8c8c8c"
"""Text, ticks, spines and grid: a mid grey that keeps its contrast on both themes."""

_TONES = {  # translucent backgrounds + a solid left rule; the text keeps the theme's colour
    "info": ("rgba(59,130,246,.14)", "#3b82f6"),
    "ok": ("rgba(16,185,129,.16)", "#10b981"),
    "warn": ("rgba(245,158,11,.20)", "#f59e0b"),
    "error": ("rgba(239,68,68,.18)", "#ef4444"),
}


@dataclass(frozen=True)
class Callout:
    """A coloured box with a bold heading: HTML in Jupyter, one plain line elsewhere."""

    tone: str
    heading: str
    body: str = ""
    pre: bool = False
    """Show `body` as preformatted text (panic messages, byte dumps)."""

    def _repr_html_(self) -> str:
        background, rule = _TONES[self.tone]
        body = html.escape(self.body)
        if self.pre:
            body = f"<pre style='margin:.3em 0 0 0;white-space:pre-wrap'>{body}</pre>"
        elif body:
            body = f"<div style='margin-top:.25em'>{body}</div>"
        style = (f"background:{background};border-left:4px solid {rule};padding:.5em .8em;"
                 "margin:.3em 0;border-radius:3px")
        return (f"<div class='routerlab-callout routerlab-{self.tone}' style='{style}'>"
                f"<b>{html.escape(self.heading)}</b>{body}</div>")

    def __repr__(self) -> str:
        return f"[{self.tone}] {self.heading}" + (f"\n{self.body}" if self.body else "")


def banner() -> Callout:
    """The environment banner: green when CuPy drives a real GPU, amber (and explicit) when not."""
    from routerlab.core.gpu import gpu_status

    status = gpu_status()
    if status.usable:
        return Callout("ok", f"GPU available: {status.device_name} × {status.device_count} "
                             f"(CuPy {status.cupy_version})",
                       "cuda:N devices run on the real GPU; cpu:N devices are simulated on numpy.")
    return Callout("warn", "No usable GPU: everything in these notebooks runs on simulated "
                           "devices (cpu:N on numpy).",
                   f"Why: {status.reason}. The lessons are the same; only notebook 07 has "
                   "GPU-only extras, and it falls back too.")


def html_of(obj: Any) -> str:
    """The HTML a notebook would show for `obj` (TableView, `.view()`, `_repr_html_`, or text)."""
    if isinstance(obj, TableView):
        return to_html(obj)
    if hasattr(obj, "_repr_html_"):
        rendered = obj._repr_html_()
        if rendered is not None:
            return str(rendered)
    if callable(getattr(obj, "view", None)):
        return html_of(obj.view())
    return f"<pre>{html.escape(str(obj))}</pre>"


def show(*objects: Any) -> None:
    """Display each object: its `_repr_html_`, else its `.view()` table, else its text."""
    from IPython.display import HTML, display

    for obj in objects:
        if hasattr(obj, "_repr_html_") or hasattr(obj, "_repr_mimebundle_"):
            display(obj)
        elif callable(getattr(obj, "view", None)):
            display(obj.view())
        else:
            display(HTML(html_of(obj)))


# --- panics -----------------------------------------------------------------------------------


@dataclass
class Caught:
    """What `catch_panic` saw: the error (a `BurnPanic` replays Burn's own text), or nothing."""

    error: BaseException | None = None

    @property
    def panicked(self) -> bool:
        return self.error is not None

    @property
    def message(self) -> str:
        return "" if self.error is None else str(self.error)

    @property
    def source(self) -> str | None:
        return getattr(self.error, "source", None)

    def _callout(self) -> Callout:
        if self.error is None:
            return Callout("ok", "No panic: the operation went through.")
        if self.source:  # a BurnPanic: print it the way Rust does
            text = f"thread '<session>' panicked at {self.source}:\n{self.message}"
            return Callout("error", f"Burn panics ({type(self.error).__name__})", text, pre=True)
        return Callout("error", f"{type(self.error).__name__}", self.message, pre=True)

    def _repr_html_(self) -> str:
        return self._callout()._repr_html_()

    def __repr__(self) -> str:
        return repr(self._callout())


@contextmanager
def catch_panic(*kinds: type[BaseException]) -> Iterator[Caught]:
    """Run a block that is *expected* to panic and keep the panic for display, not a traceback.

    Only RouterLab's own errors are caught by default (`RouterLabError`: every `BurnPanic`, a
    rejected transfer...); anything else is a real bug and propagates.
    """
    from routerlab.core.errors import RouterLabError

    caught = Caught()
    catchable: tuple[type[BaseException], ...] = kinds or (RouterLabError,)
    try:
        yield caught
    except catchable as error:
        caught.error = error


# --- step-through -----------------------------------------------------------------------------


@dataclass
class Stepper:
    """Frames to step through with a slider; a static HTML table where widgets do not render.

    Each frame is `(caption, body)`, the body anything `html_of` can show (a TableView, say).
    The display carries both the widget and the static HTML: JupyterLab shows the widget when its
    widget manager is there, and any other front end (nbclient, nbconvert, GitHub) the table.
    """

    frames: Sequence[tuple[str, Any]]
    title: str = "Step through"
    static: Any = None
    """What to show without widgets (default: every caption in a numbered table)."""
    _pages: list[str] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.frames:
            raise ValueError("a Stepper needs at least one frame")
        total = len(self.frames)
        self._pages = [
            f"<div><b>Step {i + 1} / {total}</b>: {html.escape(caption)}</div>{html_of(body)}"
            for i, (caption, body) in enumerate(self.frames)
        ]

    def static_html(self) -> str:
        if self.static is not None:
            return html_of(self.static)
        rows = [[i + 1, caption] for i, (caption, _) in enumerate(self.frames)]
        return to_html(TableView(self.title, ["step", "what happens"], rows))

    def page(self, index: int) -> str:
        """The HTML of one frame (what the slider shows at `index`)."""
        return self._pages[index]

    def widget(self) -> Any:
        import ipywidgets as widgets

        slider = widgets.IntSlider(value=0, min=0, max=len(self._pages) - 1, description="step",
                                   readout=False, continuous_update=True)
        back = widgets.Button(description="◀ back", layout=widgets.Layout(width="7em"))
        ahead = widgets.Button(description="next ▶", layout=widgets.Layout(width="7em"))
        pane = widgets.HTML(self._pages[0])

        def on_slide(change: dict[str, Any]) -> None:
            pane.value = self._pages[change["new"]]

        def nudge(delta: int) -> Callable[[Any], None]:
            def click(_button: Any) -> None:
                slider.value = min(max(slider.value + delta, slider.min), slider.max)
            return click

        slider.observe(on_slide, names="value")
        back.on_click(nudge(-1))
        ahead.on_click(nudge(+1))
        heading = widgets.HTML(f"<b>{html.escape(self.title)}</b>")
        return widgets.VBox([heading, widgets.HBox([back, slider, ahead]), pane])

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle: dict[str, Any] = {
            "text/plain": f"<{self.title}: {len(self.frames)} steps>",
            "text/html": self.static_html(),
        }
        try:
            widget_bundle = self.widget()._repr_mimebundle_()
        except Exception:  # no ipywidgets, or no kernel comms: the static table is the view
            return bundle
        if widget_bundle:
            bundle.update({k: v for k, v in widget_bundle.items() if k != "text/plain"})
        return bundle


def stepper(frames: Sequence[tuple[str, Any]], title: str = "Step through",
            static: Any = None) -> Stepper:
    """`Stepper(frames, title, static)`; display it as a cell's last expression."""
    return Stepper(list(frames), title, static)


# --- plots ------------------------------------------------------------------------------------


def plot_theme() -> None:
    """Transparent figures, mid-grey ink and the shared palette: readable in light and dark.

    Figures are shown as SVG: for a transparent PNG the inline backend adds a `needs_background`
    hint, and JupyterLab then paints a solid box behind it in one of the two themes.
    """
    import matplotlib
    import matplotlib.pyplot  # noqa: F401  (activates the inline backend before we override it)
    from cycler import cycler

    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("svg")
    except ImportError:  # outside IPython: plain matplotlib
        pass

    matplotlib.rcParams.update({
        "figure.facecolor": "none", "axes.facecolor": "none",
        "savefig.facecolor": "none", "savefig.transparent": True,
        "text.color": INK, "axes.labelcolor": INK, "axes.titlecolor": INK,
        "axes.edgecolor": INK, "xtick.color": INK, "ytick.color": INK,
        "axes.grid": True, "grid.color": INK, "grid.alpha": 0.25,
        "legend.frameon": False, "axes.prop_cycle": cycler(color=PALETTE),
        "figure.figsize": (6.4, 3.6), "figure.dpi": 100, "font.size": 10.5,
        "svg.fonttype": "none",
        "axes.spines.top": False, "axes.spines.right": False, "lines.linewidth": 2,
    })
