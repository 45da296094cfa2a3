"""Display helpers for the guided notebooks (and nothing else), one module per concern.

The notebooks are thin: every computation calls `routerlab.core`, and how things look is
`routerlab.present`'s job. This package adds what only a notebook needs:

- `display`: callouts, the environment banner, `show`, and the IPython formatters that show a
  core `TableView` or `Viewable` as its HTML table (registered when this package is imported);
- `panics`: `catch_panic`, a panic shown the way Rust prints it, not as a traceback;
- `stepping`: a step-through of frames (`Stepper`) and the recorder of a program (`Tape`);
- `sliders`: a plot redrawn by sliders (`Sliders`), for the experiments;
- `scoreboard`: transfers scored with the core's own counters, a quantized tensor's bytes, and
  the graph cache's messages and bytes run by run;
- `lesson`: a notebook's checkpoints, exercises of the one catalog (`lesson()`);
- `diagram`: the router drawn as SVG from a live runtime (`Diagram`);
- `ordering`: the same tasks submitted to one session in every order (`Reorder`);
- `peers`: served peers on loopback for a lesson, stopped with the kernel, and their faults;
- `plots`: a matplotlib theme that reads on light and dark JupyterLab themes;
- `timelines`: a registry's timeline and a swim-lane of client and sessions, from a trace;
- `wire`: a client's queue, its batches and the wire as lanes.

IPython, ipywidgets and matplotlib are imported lazily, inside the functions that need them.
Every name the notebooks import comes from here, so the modules can move without a notebook
noticing.
"""

from .diagram import Diagram
from .display import (
    Callout,
    banner,
    gpu_pair,
    html_of,
    register_formatters,
    show,
    text_of,
)
from .lesson import Lesson, lesson
from .ordering import Reorder
from .panics import Caught, catch_panic
from .plots import INK, PALETTE, plot_theme
from .scoreboard import Scoreboard, byte_regions, graph_board
from .sliders import Sliders, sliders
from .stepping import Stepper, Tape, handoff, stepper
from .timelines import registry_timeline, swimlane
from .wire import batch_table, drain_table, replay_flow, wire_lanes

__all__ = [
    "INK", "PALETTE", "Callout", "Caught", "Diagram", "Lesson", "Reorder", "Scoreboard",
    "Sliders", "Stepper", "Tape", "banner", "batch_table", "byte_regions", "catch_panic",
    "drain_table", "gpu_pair", "graph_board", "handoff", "html_of", "lesson", "plot_theme",
    "register_formatters", "registry_timeline", "replay_flow", "show", "sliders", "stepper",
    "swimlane", "text_of", "wire_lanes",
]

register_formatters()
