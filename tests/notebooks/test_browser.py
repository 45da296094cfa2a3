"""The series as a learner meets it: `routerlab lab` in headless Chromium, every notebook run.

JupyterLab is started ONCE for the module, the way a learner starts it (`routerlab lab --dir`
on a fresh workspace: the notebooks are the workspace's copies, the token travels in the
environment, the news pop-up is off). First, notebook `expectations.TYPED_IN`'s implement
checkpoint must fail with its starter and pass once the sealed solution is typed into the
`# YOUR CODE` cell through the page. Then, per notebook of `expectations.py`: give up its
checkpoints (in the workspace, as `lab.give_up` does) so that every `lab.reveal` opens, open it
ONCE, wait for the kernel's `| Idle`, Run All ONCE, and assert
- no error output, watched while the cells run: the first traceback fails the test at once with
  its text (never a long timeout);
- outside the reveal cells, the HTML tables, figures, steppers and sliders `expectations.py`
  lists (counted as `notebook_counts.py` counts them in the nbclient test: widget outputs
  apart; giving up changes only what a reveal shows, and test_execute.py checks the locked
  reveals as shipped);
- on the whole page, the `opened_*` steppers and sliders; each stepper advances on a click of
  "next" and each slider redraws the figure beside it;
- RouterLab's preformatted error text is not broken mid-word, and no news pop-up shows.

The browser is Debian's `chromium` ($ROUTERLAB_CHROMIUM, else on PATH, else /usr/bin/chromium),
driven by Playwright's Python API; no browser is ever downloaded. Without it the tests are
*skipped with the reason*. Screenshots go to test-artifacts/browser-<notebook>.png.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from expectations import EXPECTED, TYPED_IN
from notebook_counts import STEPPER_CLASS, implement_checkpoints

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
pytestmark = pytest.mark.alone  # one headless Chromium and JupyterLab at a time
ALL_CELLS = {"windowingMode": "none"}
"""Render every cell (JupyterLab virtualises long notebooks: off-screen prompts read empty)."""
RUN_LIMIT_S = 90
"""The most one notebook's Run All may take (they take seconds; a failure shows sooner)."""
URL = re.compile(r"Open: (http://127\.0\.0\.1:\d+)/lab/tree/(\S+)\?token=([0-9a-f]+)")
ERRORS = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"

COUNT_JS = f"""(skip) => {{
  const outputs = [...document.querySelectorAll('.jp-Notebook .jp-Cell')]
      .filter((cell, index) => !skip.includes(index))
      .flatMap(cell => [...cell.querySelectorAll(
          '.jp-Cell-outputArea > .jp-OutputArea-child > .jp-OutputArea-output')]);
  const shown = {{tables: 0, figures: 0, steppers: 0, sliders: 0}};
  for (const out of outputs) {{
    const mime = out.getAttribute('data-mime-type') || '';
    if (out.querySelector('.jupyter-widgets')) {{  // a widget view (it has no mime attribute)
      shown.steppers += out.querySelectorAll('.{STEPPER_CLASS}').length;
      shown.sliders += [...out.querySelectorAll('.widget-slider')]
          .filter(s => !s.closest('.{STEPPER_CLASS}')).length;
      continue;
    }}
    shown.tables += [...out.querySelectorAll('table')].filter(t => t.querySelector('td')).length;
    shown.figures += (mime === 'image/png' || mime === 'image/svg+xml') ? 1
        : out.querySelectorAll('svg').length;
  }}
  return shown;
}}"""
"""The page's counts, as `notebook_counts` counts a notebook's outputs (widget views apart),
over every cell but those whose indexes are in `skip`."""

BROKEN_WORDS_JS = """() => [...document.querySelectorAll('.routerlab-callout pre')]
    .filter(p => getComputedStyle(p).wordBreak === 'break-all')
    .map(p => p.innerText.slice(0, 80))"""
"""RouterLab's preformatted texts that JupyterLab's `word-break: break-all` still cuts."""
FIGURE_JS = ("e => [...e.querySelectorAll('img, svg')].map(f => f.getAttribute('src') "
             "|| f.outerHTML.length + ':' + f.outerHTML.slice(-400)).join('|')")
"""What a widget output's figures look like now (image data, or the SVG's size and tail)."""


def find_chromium() -> str | None:
    """$ROUTERLAB_CHROMIUM, else `chromium` on PATH, else /usr/bin/chromium."""
    for candidate in (os.environ.get("ROUTERLAB_CHROMIUM"), shutil.which("chromium"),
                      "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


@dataclass
class Lab:
    """The running `routerlab lab` and a browser on it."""

    base: str
    token: str
    workspace: Path
    browser: Any

    def url(self, notebook: str) -> str:
        """The notebook in a JupyterLab workspace (layout) of its own: a shared one would reopen
        the notebooks of earlier tests beside it."""
        return (f"{self.base}/lab/workspaces/{notebook}/tree/notebooks/{notebook}.ipynb"
                f"?token={self.token}")

    def stop_kernels(self) -> None:
        """End every session (and its kernel): each notebook ran in a kernel of its own."""
        for session in self._api("GET", "api/sessions"):
            self._api("DELETE", f"api/sessions/{session['id']}")

    def _api(self, method: str, path: str) -> Any:
        request = urllib.request.Request(f"{self.base}/{path}?token={self.token}", method=method)
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, venv_kernel: str) -> Iterator[Lab]:
    chromium = find_chromium()
    if chromium is None:
        pytest.skip("Chromium not found (looked at $ROUTERLAB_CHROMIUM, PATH, /usr/bin/chromium);"
                    " install it with: apt-get install -y --no-install-recommends chromium")
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright Python package is missing: pip install 'routerlab[test]'")
    scratch = tmp_path_factory.mktemp("lab")
    settings = scratch / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps(ALL_CELLS))
    with _routerlab_lab(scratch) as (base, token):
        with sync_playwright() as playwright:
            try:
                browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            except PlaywrightError as error:
                pytest.skip(f"Chromium at {chromium} cannot be launched: "
                            f"{str(error).splitlines()[0]}")
            try:
                yield Lab(base, token, scratch / "ws", browser)
            finally:
                browser.close()


@pytest.mark.browser
def test_an_implement_checkpoint_fails_then_passes_when_typed_in(lab: Lab) -> None:
    """The starter is not answered yet; a sealed wrong submission typed into the page fails
    (✗), the sealed solution typed in passes (✓)."""
    from routerlab.exercises.authoring.sealing import open_solution, open_wrong
    from routerlab.exercises.catalog import load_catalog

    copy = json.loads((lab.workspace / "notebooks" / f"{TYPED_IN}.ipynb").read_text())
    found = implement_checkpoints(copy["cells"])
    if not found:
        assert EXPECTED[TYPED_IN].implement == 0, f"{TYPED_IN}: the implement cell is missing"
        pytest.skip(f"{TYPED_IN} has no implement checkpoint yet (a `# YOUR CODE` cell, then "
                    "`lab.check(\"id\", ...)`): tests/notebooks/expectations.py counts 0")
    code_cell, check_cell, exercise_id = found[0]
    exercise = load_catalog().get(exercise_id)
    page = lab.browser.new_page(viewport={"width": 1280, "height": 1000})
    try:
        _run_all(page, lab.url(TYPED_IN), None)
        cells = page.locator(".jp-Notebook .jp-Cell")
        verdict = cells.nth(check_cell).locator(".jp-OutputArea-output")
        assert "not answered yet" in verdict.inner_text(), f"the starter checked {exercise_id}"
        for text, mark in ((open_wrong(exercise)[0].source, "✗"), (open_solution(exercise), "✓")):
            editor = cells.nth(code_cell).locator(".cm-content")
            editor.click()
            page.keyboard.press("ControlOrMeta+a")
            page.keyboard.insert_text(text)  # as pasted: no auto-indent, no closing brackets
            page.keyboard.press("Shift+Enter")  # runs the code, selects the next cell
            if check_cell != code_cell + 1:  # markdown between them: select the check cell
                cells.nth(check_cell).click()
            cells.nth(check_cell).locator(".jp-InputArea-prompt").click()
            page.keyboard.press("Shift+Enter")
            _wait(lambda mark=mark: mark in verdict.first.inner_text(), 30, page,
                  f"{exercise_id} did not show {mark} with the typed-in code")
    finally:
        page.close()
        lab.stop_kernels()


@pytest.mark.browser
@pytest.mark.parametrize("notebook", list(EXPECTED))
def test_notebook_runs_and_shows_what_it_should(lab: Lab, notebook: str, artifacts: Path) -> None:
    page = lab.browser.new_page(viewport={"width": 1280, "height": 1000})
    shot = artifacts / f"browser-{notebook}.png"
    expected = EXPECTED[notebook]
    try:
        _give_up_checkpoints(lab.workspace, notebook)  # every lab.reveal opens in the one run
        _run_all(page, lab.url(notebook), shot)
        shown = page.evaluate(COUNT_JS, _reveal_cells(lab.workspace, notebook))
        assert expected._replace(**shown) == expected, (
            f"{notebook} shows {shown} outside its reveals in JupyterLab, expected {expected} "
            f"(tests/notebooks/expectations.py; see {shot})")
        opened = page.evaluate(COUNT_JS, [])
        assert (opened["steppers"], opened["sliders"]) == (
            expected.opened_steppers, expected.opened_sliders), (
            f"{notebook} with its checkpoints given up shows {opened}, expected "
            f"{expected.opened_steppers} steppers and {expected.opened_sliders} sliders")
        assert not page.evaluate(BROKEN_WORDS_JS), "error text broken mid-word"
        assert not page.get_by_text(re.compile("Jupyter news", re.I)).count(), "news pop-up"
        _step_every_stepper(page, notebook)
        _move_every_slider(page, notebook)
        _screenshot(page, shot)  # the lesson as run, answers opened, for a reviewer
    except BaseException:
        _screenshot(page, shot)
        raise
    finally:
        page.close()
        lab.stop_kernels()


def _reveal_cells(workspace: Path, notebook: str) -> list[int]:
    """The indexes of the code cells that call `lab.reveal(`, in the workspace's copy (the
    page lists every cell: windowing is off)."""
    cells = json.loads((workspace / "notebooks" / f"{notebook}.ipynb").read_text())["cells"]
    return [i for i, cell in enumerate(cells) if cell["cell_type"] == "code"
            and "lab.reveal(" in "".join(cell["source"])]


def _give_up_checkpoints(workspace: Path, notebook: str) -> None:
    """Give up every checkpoint of `notebook` in the workspace (what `lab.give_up` records),
    except the implement checkpoints of `TYPED_IN`, which the typing test passes by hand."""
    from routerlab.exercises.catalog import load_catalog
    from routerlab.exercises.learner.course import Course
    from routerlab.exercises.learner.workspace import open_workspace

    copy = json.loads((workspace / "notebooks" / f"{notebook}.ipynb").read_text())
    typed = {i for *_, i in implement_checkpoints(copy["cells"])} if notebook == TYPED_IN else set()
    course = Course(open_workspace(workspace))
    for exercise in load_catalog():
        if exercise.notebook == notebook and exercise.id not in typed:
            course.give_up(exercise.id)


def _run_all(page, url: str, shot: Path | None) -> None:
    """Open the notebook, wait for the idle kernel, Run All, and wait until every code cell has
    run; the first error output fails at once with its text."""
    page.goto(url)
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
    # The status bar says "| Idle" once the kernel is up; running earlier is the known flake.
    page.get_by_text("| Idle").first.wait_for(timeout=60_000)
    prompts = page.locator(".jp-Notebook .jp-CodeCell .jp-InputArea-prompt")
    assert prompts.count() > 0
    ran_before = max(_counts(prompts.all_inner_texts()), default=0)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    errors = page.locator(ERRORS)

    def finished() -> bool:
        if errors.count():
            texts = "\n---\n".join(errors.nth(i).inner_text()[-3000:]
                                   for i in range(errors.count()))
            if shot is not None:
                _screenshot(page, shot)
            pytest.fail(f"error output in JupyterLab:\n{texts}", pytrace=False)
        counts = _counts(texts := prompts.all_inner_texts())
        return len(counts) == len(texts) and min(counts) > ran_before

    _wait(finished, RUN_LIMIT_S, page, "not every cell ran")
    page.get_by_text("| Idle").first.wait_for(timeout=30_000)
    page.wait_for_timeout(300)  # the last display messages paint


def _counts(prompts: list[str]) -> list[int]:
    """The execution counts of the prompts that have one (`[12]:`); `[ ]:` and `[*]:` have none."""
    return [int(found.group()) for p in prompts if (found := re.search(r"\d+", p))]


def _step_every_stepper(page, notebook: str) -> None:
    steppers = page.locator(f".{STEPPER_CLASS}")
    for i in range(steppers.count()):
        stepper = steppers.nth(i)
        stepper.scroll_into_view_if_needed()
        assert re.search(r"\b1 / \d", stepper.inner_text()), f"{notebook}: stepper {i} is not " \
            "at its first step (`Step 1 / N`, `Line 1 / N`...)"
        stepper.get_by_role("button", name=re.compile("next")).click()
        _wait(lambda s=stepper: re.search(r"\b2 / \d", s.inner_text()), 10, page,
              f"{notebook}: stepper {i} did not advance on a click of next")


def _move_every_slider(page, notebook: str) -> None:
    """Each slider outside a stepper moves one notch (keyboard, as a learner could), and the
    figure in the same widget output must be redrawn (its image data or SVG changes)."""
    sliders = page.locator(f".jp-OutputArea-output .jupyter-widgets.widget-slider"
                           f":not(.{STEPPER_CLASS} .widget-slider)")
    for i in range(sliders.count()):
        slider = sliders.nth(i)
        output = slider.locator("xpath=ancestor::div[contains(@class,'jp-OutputArea-output')][1]")
        before = output.evaluate(FIGURE_JS)
        assert before, f"{notebook}: slider {i} has no figure beside it"
        slider.scroll_into_view_if_needed()
        handle = slider.locator(".noUi-handle, .ui-slider-handle, [role=slider]").first
        handle.focus()
        page.keyboard.press("ArrowRight")
        _wait(lambda o=output, b=before: o.evaluate(FIGURE_JS) not in ("", b), 20, page,
              f"{notebook}: slider {i} moved but its figure was not redrawn")


def _wait(done, limit_s: float, page, failure: str) -> None:
    deadline = time.monotonic() + limit_s
    while not done():
        if time.monotonic() > deadline:
            pytest.fail(f"{failure} within {limit_s} s", pytrace=False)
        page.wait_for_timeout(200)


def _screenshot(page, path: Path) -> None:
    """The whole notebook: JupyterLab scrolls inside its panel, so the viewport grows to it."""
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll("
        "'.jp-WindowedPanel-inner, .jp-Notebook')].map(e => e.scrollHeight), 0)")
    page.set_viewport_size({"width": 1280, "height": min(int(height) + 220, 20_000)})
    page.evaluate("() => document.querySelectorAll('.jp-WindowedPanel-outer')"
                  ".forEach(e => { e.scrollTop = 0; })")
    page.wait_for_timeout(500)
    page.screenshot(path=str(path), full_page=True)


class _routerlab_lab:
    """`routerlab lab --dir <scratch>/ws --no-browser`, as a learner runs it, with fresh
    JupyterLab user settings (`scratch/settings`: every cell rendered) and runtime folders."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch

    def __enter__(self) -> tuple[str, str]:
        env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(self.scratch / "settings"),
               "JUPYTERLAB_WORKSPACES_DIR": str(self.scratch / "workspaces")}
        self.log = (self.scratch / "lab.log").open("w+")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "routerlab", "lab", "--dir", str(self.scratch / "ws"),
             "--no-browser"],
            stdout=subprocess.PIPE, stderr=self.log, text=True, env=env, start_new_session=True)
        lines = [self.process.stdout.readline() for _ in range(4)]  # workspace, copied, URL
        found = next(filter(None, map(URL.search, lines)), None)
        if found is None:
            self._fail(f"routerlab lab printed no URL: {lines}")
        base, landing, token = found.groups()
        assert landing == "notebooks/00-welcome.ipynb", "routerlab lab opens 00-welcome"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                    return base, token
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.25)
        self._fail("JupyterLab did not start")

    def _fail(self, why: str) -> None:
        self.log.seek(0)
        log = self.log.read()[-3000:]
        self.__exit__()
        pytest.fail(f"{why}:\n{log}")

    def __exit__(self, *_exc: object) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()
