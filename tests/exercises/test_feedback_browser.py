"""A student's feedback page (`teacher recheck --feedback`) opened in the Chromium the browser
tests use: it renders offline, shows the summary, each exercise and its checks, a visible
check's expected value, and no hidden check's."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from routerlab.exercises.teacher.classroom import CheckResult, ExerciseResult, StudentResult
from routerlab.exercises.teacher.feedback import write_feedback

pytestmark = [pytest.mark.browser, pytest.mark.alone]

HIDDEN_VALUE = "0.0283464566929"


def _chromium() -> str:
    found = os.environ.get("ROUTERLAB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(found).is_file():
        pytest.skip("Chromium not found ($ROUTERLAB_CHROMIUM, PATH, /usr/bin/chromium); `./run "
                    "test` installs it: apt-get install -y --no-install-recommends chromium")
    return found


def test_a_feedback_page_renders_in_chromium_without_hidden_values(tmp_path: Path) -> None:
    chromium = _chromium()
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        pytest.skip("the playwright Python package is missing: pip install 'routerlab[test]'")
    checks = [CheckResult("Burn's test: [-1.8, -1.0, 0, 0.5] in Q8S", False, "failed",
                          "compute_scale(...)", "0.0141732", "<b>0.5</b>", 2),
              CheckResult("300 seeded random tensors", True, "failed", "a hidden case differs",
                          None, "0.7", 2)]
    exercise = ExerciseResult("quant-1", "Compute a quantization scale", "implement", 0.0, 10,
                              False, "failed", checks=checks, hint_level=2)
    passed = ExerciseResult("flow-1", "Servers and sessions", "predict", 10.0, 10, True,
                            "passed", checks=[CheckResult("every answer", False, "passed")])
    page, _ = write_feedback(tmp_path, StudentResult("s1", "/subs/s1", [exercise, passed]))
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
        except Error as error:
            pytest.skip(f"Chromium at {chromium} cannot be launched: {str(error).splitlines()[0]}")
        try:
            tab = browser.new_page()
            tab.goto(page.as_uri())
            assert "10 of 20 points" in tab.inner_text("#summary")
            assert tab.locator("details.exercise").count() == 2
            assert tab.locator("details.exercise[open]").count() == 1, "a passed one is folded"
            assert not tab.locator("#flow-1 table").is_visible()
            assert tab.locator("#quant-1 table").is_visible()
            overview = tab.inner_text("#overview")
            assert overview.index("quant-1") < overview.index("flow-1"), "work left comes first"
            assert "routerlab exercises hint quant-1" in overview
            text = tab.inner_text("body")
            assert "0.0141732" in text and HIDDEN_VALUE not in text
            assert "<b>0.5</b>" in text, "a student's value is shown as text, not markup"
            assert "routerlab exercises hint quant-1" in text
            assert tab.locator("tr.failed").count() == 2
            many = [ExerciseResult(f"x-{i}", f"exercise {i}", "implement", 10.0, 10, i >= 4,
                                   "passed" if i >= 4 else "failed",
                                   checks=[CheckResult(f"check {k}", False,
                                                       "passed" if i >= 4 else "failed",
                                                       "", "1", "1") for k in range(6)])
                    for i in range(34)]
            long_page, _ = write_feedback(tmp_path, StudentResult("s2", "/s2", many))
            tab.goto(long_page.as_uri())
            folded = tab.evaluate("document.body.scrollHeight")
            tab.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            unfolded = tab.evaluate("document.body.scrollHeight")
            assert folded * 2 < unfolded, (folded, unfolded)
        finally:
            browser.close()
