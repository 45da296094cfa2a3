"""What each notebook of the series shows once it has run: THE table both notebook tests read.

`test_execute.py` (nbclient, no browser) and `test_browser.py` (JupyterLab in Chromium) assert
these counts, so a lesson whose plots stop drawing (matplotlib forced onto a non-display backend),
whose tables render empty, or whose widgets vanish fails both. Counted over the cells' top-level
outputs (`outputs.py` says exactly how); a widget's static fallback is not counted. Change a
notebook, change its row here.

- `tables`: HTML `<table>`s with at least one cell, outside widgets (a core table, a
  comparison, a static step list);
- `figures`: PNG and SVG images, and SVG drawn inline in HTML, outside widgets;
- `steppers`: step-through widgets (`routerlab.notebook.stepper`), each advanced by a click in the
  browser test;
- `sliders`: sliders outside steppers (an experiment's parameter), each moved in the browser test,
  which then expects the figure beside it to be redrawn;
- `implement`: implement checkpoints (a code cell starting `# YOUR CODE`, checked by the next
  cell's `lab.check("id", ...)`);
- `opened_steppers`, `opened_sliders`: the steppers and sliders shown once every checkpoint of
  the notebook is given up, so that each `lab.reveal(...)` opens (a stepper that shows an answer
  stays locked until then). Only the browser test sees this state: it gives the checkpoints up
  and runs the notebook again, then clicks and moves these.
"""

from __future__ import annotations

from typing import NamedTuple


class Shows(NamedTuple):
    tables: int
    figures: int
    steppers: int = 0
    sliders: int = 0
    implement: int = 0
    opened_steppers: int = 0
    opened_sliders: int = 0


EXPECTED: dict[str, Shows] = {
    "00-welcome": Shows(tables=3, figures=2),
    "01-handles": Shows(tables=3, figures=1, implement=2),
    "02-router-flow": Shows(tables=2, figures=1, implement=1, opened_steppers=1),
    "03-moving-tensors": Shows(tables=3, figures=1, implement=1, opened_steppers=1),
    "04-quantization": Shows(tables=1, figures=1, sliders=2, implement=2, opened_sliders=2),
    "05-the-gap": Shows(tables=1, figures=0, implement=2, opened_steppers=1),
    "06-the-fix": Shows(tables=1, figures=2, sliders=2, implement=1, opened_sliders=2),
    "07-gpu": Shows(tables=0, figures=1),
    "08-real-peers": Shows(tables=3, figures=0),
    "09-the-wire": Shows(tables=6, figures=1, implement=2),
    "10-capstone-router": Shows(tables=3, figures=0, implement=1),
    "11-build-your-router": Shows(tables=0, figures=0),
}
"""Per notebook (by stem, in series order): what it shows after a clean top-to-bottom run."""

TYPED_IN = "01-handles"
"""The notebook whose first implement checkpoint the browser test solves by typing the sealed
solution into the page (it must fail with the starter first)."""
