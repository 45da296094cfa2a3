"""What a notebook shows: callouts, the environment banner, `show`, and core objects as tables.

Core objects carry no renderer (`routerlab.core.base.view`): Jupyter shows a `TableView` or a
`Viewable` through the HTML formatters `register_formatters` adds to IPython, which call
`routerlab.present.html`, the same renderer `html_of` uses.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core import TableView, Viewable
from ..present import html as present_html
from ..present import text as present_text
from ..present.html import html_of

__all__ = ["Callout", "banner", "gpu_pair", "html_of", "register_formatters", "show", "text_of"]


@dataclass(frozen=True)
class Callout:
    """A tinted box with a bold heading: HTML in Jupyter, a plain `[tone] heading` elsewhere.

    `tone` is a style word of the palette: `"ok"`, `"info"`, `"warn"` or `"error"`."""

    tone: str
    heading: str
    body: str = ""
    pre: bool = False
    """Show `body` as preformatted text (panic messages, byte dumps)."""

    def _repr_html_(self) -> str:
        return present_html.callout(self.tone, self.heading, self.body, self.pre)

    def __repr__(self) -> str:
        return present_text.callout(self.tone, self.heading, self.body)


def banner() -> Callout:
    """The environment banner: green when CuPy drives a real GPU, amber (and explicit) when not."""
    from ..core import gpu_status

    status = gpu_status()
    if status.usable:
        return Callout("ok", f"GPU available: {status.device_name} × {status.device_count} "
                             f"(CuPy {status.cupy_version})",
                       "cuda:N devices run on the real GPU; cpu:N devices are simulated on numpy.")
    return Callout("warn", "No usable GPU: everything in these notebooks runs on simulated "
                           "devices (cpu:N on numpy).",
                   f"Why: {status.reason}. The lessons are the same: notebook 07 runs its "
                   "GPU devices as cpu:N@cubecl, with CubeCL's arithmetic.")


def gpu_pair() -> tuple[str, str, Callout]:
    """Two devices for the GPU notebook, and a banner saying what they are.

    The GPU devices live on a peer of their own, `gpu` (a server hosts one backend), so `cpu:0`
    stays free for the plain CPU device the notebook compares with. Two usable GPUs:
    `gpu/cuda:0` and `gpu/cuda:1` (the same-peer path). One GPU: `gpu/cuda:0` and
    `gpu2/cuda:0`, the same GPU seen by a second server process (the bytes path). No GPU:
    `gpu/cpu:1@cubecl` and `gpu/cpu:2@cubecl`, simulated devices that compute like CubeCL's
    kernels (divide, round half to even, PackedU32 store), so every lesson still runs.
    """
    from ..core import gpu_status

    status = gpu_status()
    if status.usable and status.device_count >= 2:
        return "gpu/cuda:0", "gpu/cuda:1", Callout(
            "ok", f"Two GPUs ({status.device_name}): gpu/cuda:0 → gpu/cuda:1 takes the same-peer "
                  "path.")
    if status.usable:
        return "gpu/cuda:0", "gpu2/cuda:0", Callout(
            "ok", f"One GPU ({status.device_name}): the second device is the same GPU served by "
                  "another server process (gpu2), so transfers take the bytes path.")
    return "gpu/cpu:1@cubecl", "gpu/cpu:2@cubecl", Callout(
        "warn", "No usable GPU: this notebook runs on gpu/cpu:1@cubecl and gpu/cpu:2@cubecl, "
                "simulated "
                "devices that compute exactly like CubeCL's kernels (divide, round half to even, "
                "PackedU32 store).", f"Why: {status.reason}.")


def text_of(view: TableView) -> str:
    """A plain-text table (what a terminal or a text-only front end shows)."""
    return present_text.table(view)


def show(*objects: Any) -> None:
    """Display each object: its own rich display if it has one, else its HTML (`html_of`)."""
    from IPython.display import HTML, display

    for obj in objects:
        if hasattr(obj, "_repr_html_") or hasattr(obj, "_repr_mimebundle_"):
            display(obj)
        else:
            display(HTML(html_of(obj)))


def register_formatters(display_formatter: Any = None) -> bool:
    """Teach IPython to show every `TableView` and `Viewable` as its HTML table.

    `display_formatter` is an IPython `DisplayFormatter`; by default, the running shell's. Outside
    IPython (a script, the CLI) there is none and nothing is registered: returns whether it was.
    IPython looks formatters up along the class's MRO, so one entry covers every `Viewable`.
    """
    if display_formatter is None:
        ipython = sys.modules.get("IPython")  # not imported: no shell is running
        shell = ipython.get_ipython() if ipython is not None else None
        if shell is None:
            return False
        display_formatter = shell.display_formatter
    html = display_formatter.formatters["text/html"]
    html.for_type(TableView, present_html.table)
    html.for_type(Viewable, present_html.viewable)
    return True


def with_widget(bundle: dict[str, Any], make_widget: Callable[[], Any]) -> dict[str, Any]:
    """A display bundle whose static HTML any front end shows, plus the live widget's view where
    ipywidgets and a widget front end are there (JupyterLab then shows the widget)."""
    try:
        widget_bundle = make_widget()._repr_mimebundle_()
    except Exception:  # no ipywidgets, or no kernel comms: the static view is the view
        return bundle
    if widget_bundle:
        bundle.update({k: v for k, v in widget_bundle.items() if k != "text/plain"})
    return bundle
