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

from routerlab.core.view import Cell, TableView, format_cell, to_html

__all__ = [
    "PALETTE", "Callout", "Caught", "Scoreboard", "Stepper", "Tape", "WrongAnswer", "banner",
    "byte_regions", "catch_panic", "check", "gpu_pair", "html_of", "plot_theme", "seal_explanation",
    "show", "stepper", "text_of",
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


def gpu_pair() -> tuple[str, str, Callout]:
    """Two devices for the GPU notebook, and a banner saying what they are.

    Two usable GPUs: `cuda:0` and `cuda:1` (the same-peer path). One GPU: `cuda:0` and
    `peer2/cuda:0`, the same GPU seen by a second server process (the bytes path). No GPU:
    `cpu:1@cubecl` and `cpu:2@cubecl`, simulated devices that compute like CubeCL's kernels
    (divide, round half to even, PackedU32 store), so every lesson still runs; `cpu:0` stays
    free for the plain CPU device the notebook compares with.
    """
    from routerlab.core.gpu import gpu_status

    status = gpu_status()
    if status.usable and status.device_count >= 2:
        return "cuda:0", "cuda:1", Callout(
            "ok", f"Two GPUs ({status.device_name}): cuda:0 → cuda:1 takes the same-peer path.")
    if status.usable:
        return "cuda:0", "peer2/cuda:0", Callout(
            "ok", f"One GPU ({status.device_name}): the second device is the same GPU served by "
                  "another server process (peer2), so transfers take the bytes path.")
    return "cpu:1@cubecl", "cpu:2@cubecl", Callout(
        "warn", "No usable GPU: this notebook runs on cpu:1@cubecl and cpu:2@cubecl, simulated "
                "devices that compute exactly like CubeCL's kernels (divide, round half to even, "
                "PackedU32 store).", f"Why: {status.reason}.")


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


def text_of(view: TableView) -> str:
    """A plain-text table (what a terminal or a text-only front end shows)."""
    cells = [list(view.columns)] + [[format_cell(c) for c in row] for row in view.rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(view.columns))]
    lines = [view.title] + ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                            for r in cells]
    return "\n".join(lines + ([view.caption] if view.caption else []))


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
            thread = getattr(self.error, "session", None) or "main"
            # The panic line carries Burn's own text; the model's notes (the session that
            # ended, a target left waiting) follow, apart.
            burn = getattr(self.error, "message", self.message)
            note = getattr(self.error, "notes", "")
            text = f"thread '{thread}' panicked at {self.source}:\n{burn}"
            if note:
                text += f"\n\n{note}"
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


# Widget HTML does not get JupyterLab's table styles; these read on light and dark themes.
_STEP_STYLE = (
    "<style>.routerlab-step table{border-collapse:collapse;margin:.3em 0 .8em 0}"
    ".routerlab-step th,.routerlab-step td{padding:.15em .7em;text-align:left;"
    "border-bottom:1px solid rgba(128,128,128,.35)}</style>"
)


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
            f"<div class='routerlab-step'>{_STEP_STYLE}<div><b>Step {i + 1} / {total}</b>: "
            f"{html.escape(caption)}</div>{html_of(body)}</div>"
            for i, (caption, body) in enumerate(self.frames)
        ]

    def static_html(self) -> str:
        if self.static is not None:
            return html_of(self.static)
        rows: list[list[Cell]] = [[i + 1, caption] for i, (caption, _) in enumerate(self.frames)]
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


# --- recording a program ---------------------------------------------------------------------


@dataclass
class _Snap:
    caption: str
    events: list[Any]
    handles: dict[str, list[int]]
    registries: dict[str, TableView]


class Tape:
    """Snapshots of a `Runtime` taken between the lines of a small program.

    `tape.snap("what the line did")` after each line keeps that line's trace events and every
    device's registry as the core reports them (`rt.trace.read`, `rt.registries()`); the tape
    then shows as a step-through (`tape.stepper()`) or as one summary table (`tape.view()`).
    """

    def __init__(self, rt: Any) -> None:
        self.rt = rt
        self._mark = len(rt.trace)
        self.snaps: list[_Snap] = []

    def snap(self, caption: str) -> None:
        events = self.rt.trace.read(self._mark)
        self._mark = len(self.rt.trace)
        devices = [str(d) for d in self.rt.devices]
        self.snaps.append(_Snap(caption, events,
                                {d: self.rt.handle_ids(d) for d in devices},
                                self.rt.registries()))

    def view(self) -> TableView:
        """One row per snapshot: the line, the ops the sessions ran, the ids each registry holds."""
        devices = sorted({d for s in self.snaps for d in s.handles})
        rows: list[list[Cell]] = []
        for i, snap in enumerate(self.snaps):
            ops = "; ".join(e.detail for e in snap.events if e.kind in ("op", "drop"))
            rows.append([i + 1, snap.caption, ops or "(nothing sent)",
                         *(_ids(snap.handles.get(d)) for d in devices)])
        return TableView("The program, line by line", ["step", "line", "sent to the sessions",
                         *(f"{d} holds" for d in devices)], rows)

    def frames(self) -> list[tuple[str, Any]]:
        frames = []
        for snap in self.snaps:
            events: Any = self.rt.trace.view(snap.events, title="What the router did")
            if not snap.events:
                events = Callout("info", "Nothing was sent: no session saw this line.")
            tables = "".join(
                f"<div style='display:inline-block;vertical-align:top;margin-right:2em'>"
                f"{html_of(view)}</div>" for view in snap.registries.values())
            frames.append((snap.caption, _Html(html_of(events) + tables)))
        return frames

    def stepper(self, title: str = "Step through the program") -> Stepper:
        return Stepper(self.frames(), title, static=self.view())

    def _repr_html_(self) -> str:
        return to_html(self.view())

    def __repr__(self) -> str:
        return text_of(self.view())


def _ids(ids: list[int] | None) -> str:
    if ids is None:
        return "—"
    return ", ".join(f"#{i}" for i in ids) if ids else "(empty)"


@dataclass(frozen=True)
class _Html:
    text: str

    def _repr_html_(self) -> str:
        return self.text


_WIRE_EVENTS = ("copy", "publish", "download", "bridge")
_BOARD_COLUMNS = ["move", "path", "ids", "source", "host bytes", "device bytes", "copies"]


class Scoreboard:
    """Moves tensors with `rt.to_device` and keeps score: path, moved or copied, bytes, copies.

    Every number comes from the core: the path from `automatic_path` (or the forced one), the
    bytes from the trace events of the move, the buffer copies from the backends' counters.
    """

    def __init__(self, rt: Any) -> None:
        self.rt = rt
        self.rows: list[dict[str, Any]] = []

    def move(self, tensor: Any, device: str, path: str | None = None, **options: Any) -> Any:
        """`rt.to_device(tensor, device, path, **options)`, scored; returns the moved tensor."""
        from routerlab.core.devices import automatic_path, parse_device

        source, source_id = tensor.device, int(tensor.id)
        chosen = path or str(automatic_path(source, parse_device(device)))
        mark, copies = len(self.rt.trace), self._copies()
        moved = self.rt.to_device(tensor, device, path, **options)
        events = self.rt.trace.read(mark)
        wire = {k: sum(e.nbytes for e in events if e.kind == k) for k in _WIRE_EVENTS}
        kept = source_id in self.rt.handle_ids(source)
        fate = "same tensor" if moved.id == source_id else ("copied" if kept else "moved")
        self.rows.append(dict(zip(_BOARD_COLUMNS, [
            f"{source} → {moved.device}", chosen, f"#{source_id} → #{int(moved.id)}", fate,
            wire["publish"] + wire["download"], wire["copy"] + wire["bridge"],
            self._copies() - copies], strict=True)))
        return moved

    def _copies(self) -> int:
        return sum(self.rt.session(d).interpreter.backend.copies for d in self.rt.devices)

    def view(self) -> TableView:
        rows = [[row[c] if row[c] != 0 else None for c in _BOARD_COLUMNS] for row in self.rows]
        return TableView("Transfer scoreboard", _BOARD_COLUMNS, rows,
                         caption="host bytes: read back to TensorData on the source plus uploaded "
                                 "on the target (they cross the network between peers); device "
                                 "bytes: handed from buffer to buffer inside one server process "
                                 "(a local copy, a bridge conversion); copies: buffer copies "
                                 "made by the backends")

    def _repr_html_(self) -> str:
        return to_html(self.view())

    def __repr__(self) -> str:
        return text_of(self.view())


# --- quantized bytes ---------------------------------------------------------------------------


def byte_regions(tensor: Any) -> TableView:
    """The canonical byte layout of a `QuantizedTensor` (`tensor.to_bytes()`), cut into its three
    dense regions: values, scales in the scale dtype, and the f32 global of a two-level scheme."""
    raw = tensor.to_bytes()
    sizes = [("values", int(tensor.values.nbytes), str(tensor.values.dtype)),
             ("scales", int(tensor.scales.nbytes), str(tensor.scheme.scale_dtype().name)),
             ("global", 0 if tensor.global_scale is None else 4, "f32")]
    rows, offset = [], 0
    for region, size, kind in sizes:
        if size:
            chunk = raw[offset:offset + size]
            shown = chunk.hex(" ") if size <= 24 else chunk[:24].hex(" ") + " …"
            rows.append([region, kind, offset, size, shown])
        offset += size
    return TableView(f"Byte layout of {tensor.scheme} {list(tensor.shape)}",
                     ["region", "stored as", "offset", "bytes", "hex"], rows,
                     caption=f"{len(raw)} bytes in all, no padding between regions "
                             "(scales and global in native endianness)")


# --- closing exercises -----------------------------------------------------------------------


class WrongAnswer(AssertionError):
    """A wrong prediction: the cell fails, with a short message instead of a long traceback."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message + (f"\nHint: {hint}" if hint else ""))
        self.hint = hint

    def _render_traceback_(self) -> list[str]:  # IPython shows these lines instead of a traceback
        return [f"\x1b[31m✗ {line}\x1b[0m" for line in str(self).splitlines()]


SEALED = "sealed:"
_UNOPENED = "(the explanation did not open: the model's answer differs from when it was sealed)"


def seal_explanation(truth: Any, text: str) -> str:
    """Seal the explanation of an exercise so that the notebook does not give the answer away:
    only the right answer opens it (`check` opens it after a correct answer). Authors run this
    once, with the value the model gives, and paste the result as `explain=`."""
    from routerlab.exercises.answers import seal

    return SEALED + seal(text, _explain_key(truth))


def _open_explanation(explain: str, expected: Any) -> str:
    if not explain.startswith(SEALED):
        return explain
    from routerlab.exercises.answers import unseal

    try:
        return unseal(explain[len(SEALED):], _explain_key(expected))
    except ValueError:
        return _UNOPENED


def _explain_key(truth: Any) -> str:
    import hashlib

    from routerlab.exercises.answers import canonical

    return hashlib.sha256(b"routerlab-notebook-explain\0"
                          + canonical(truth, places=4).encode()).hexdigest()


def check(answer: Any, truth: Any, *, hint: str = "", explain: str = "",
          rel: float = 1e-6) -> Callout:
    """Check a prediction against what the model actually does.

    `answer` is the student's value; `...` (the shipped placeholder) means "not answered yet" and
    is reported without failing, so the notebook still runs top to bottom. `truth` is the value or
    a zero-argument callable asking `routerlab.core`, called only once an answer is given (so the
    answer is not shown before the student predicts). It runs again on every attempt, so it must
    only *look* at the model, never change it. Numbers compare to `rel` (relative, 1e-6 unless
    the question asks for rounded digits),
    strings without case or surrounding spaces, sequences element by element. A wrong answer
    raises `WrongAnswer` with the hint; a right one shows the explanation (`explain`, plain or
    made by `seal_explanation`, so that it does not give the answer away before it is found).
    """
    if answer is ...:
        return Callout("info", "Not answered yet: replace the ... with your prediction and run "
                               "this cell again.")
    expected = truth() if callable(truth) else truth
    if not _same(answer, expected, rel):
        raise WrongAnswer(f"Not quite: {answer!r} is not what the model does.", hint)
    return Callout("ok", f"Correct: {answer!r}.", _open_explanation(explain, expected))


def _same(answer: Any, expected: Any, rel: float = 1e-6) -> bool:
    """Whether a notebook prediction matches the model's live answer.

    Deliberately not `exercises.answers.canonical`, the rule of the classroom exercises: those
    compare *digests* of a canonical text (the right answer is not shipped), so they can only test
    equality after rounding, and each answer part's `form` does its own lenient parsing. Here the
    model's value is at hand, so
    numbers compare with a relative tolerance (notebook 06 asks for three significant digits,
    which no fixed number of decimals expresses), strings ignore case and spaces, and a set
    accepts a list in any order. One rule for both would change what some answer accepts.
    """
    if isinstance(expected, str) or isinstance(answer, str):
        return str(answer).strip().lower() == str(expected).strip().lower()
    if hasattr(expected, "tolist"):
        expected = expected.tolist()
    if hasattr(answer, "tolist"):
        answer = answer.tolist()
    if isinstance(expected, bool) or isinstance(answer, bool):
        return answer is expected or answer == expected and type(answer) is type(expected)
    if isinstance(expected, int | float) and isinstance(answer, int | float):
        return abs(answer - expected) <= rel * max(1.0, abs(expected))
    if isinstance(expected, list | tuple) and isinstance(answer, list | tuple):
        return len(answer) == len(expected) and all(
            _same(a, e, rel) for a, e in zip(answer, expected, strict=True))
    if isinstance(expected, set | frozenset) and isinstance(answer, set | frozenset | list | tuple):
        return set(answer) == set(expected)
    return bool(answer == expected)


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
