"""`routerlab.notebook.display`: the environment banner, the GPU pair, callouts in the one
palette, and the IPython formatters that show core objects as their tables."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from routerlab.core.base.gpu import FORCE_NUMPY_ENV, GpuStatus
from routerlab.core.runtime import Runtime
from routerlab.notebook.display import Callout, banner, gpu_pair, html_of, show, text_of
from routerlab.present.html import table
from routerlab.present.palette import AMBER, BLUE, GREEN, RED, Hue, background


@pytest.fixture
def fresh_probe() -> Iterator[None]:
    """`gpu_status` is cached per process: start and leave the probe uncached."""
    from routerlab.core.base.gpu import gpu_status

    gpu_status.cache_clear()
    yield
    gpu_status.cache_clear()


def test_banner_is_amber_with_the_reason_when_no_gpu_is_usable(
        monkeypatch: pytest.MonkeyPatch, fresh_probe: None) -> None:
    monkeypatch.setenv(FORCE_NUMPY_ENV, "1")  # the real probe, answering "not usable"
    shown = banner()
    assert shown.tone == "warn" and shown.heading.startswith("No usable GPU")
    assert f"Why: {FORCE_NUMPY_ENV} is set: the numpy backend is forced." in shown.body
    assert AMBER.hex in shown._repr_html_()

    monkeypatch.setattr("routerlab.core.gpu_status",
                        lambda: GpuStatus(False, "CuPy is not installed (ImportError)"))
    assert "Why: CuPy is not installed (ImportError)." in banner().body


def test_banner_is_green_when_a_gpu_is_usable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("routerlab.core.gpu_status", lambda: GpuStatus(
        True, "CuPy and a CUDA GPU are usable", "13.3.0", 2, "NVIDIA H200"))
    shown = banner()
    assert shown.tone == "ok"
    assert shown.heading == "GPU available: NVIDIA H200 × 2 (CuPy 13.3.0)"
    assert GREEN.hex in shown._repr_html_() and AMBER.hex not in shown._repr_html_()


@pytest.mark.parametrize("status, pair", [
    (GpuStatus(True, "usable", "13.3.0", 2, "H200"), ("gpu/cuda:0", "gpu/cuda:1", "ok")),
    (GpuStatus(True, "usable", "13.3.0", 1, "H200"), ("gpu/cuda:0", "gpu2/cuda:0", "ok")),
    (GpuStatus(False, "no GPU here"), ("gpu/cpu:1@cubecl", "gpu/cpu:2@cubecl", "warn")),
])
def test_gpu_pair_follows_gpu_status(monkeypatch: pytest.MonkeyPatch, status: GpuStatus,
                                     pair: tuple[str, str, str]) -> None:
    monkeypatch.setattr("routerlab.core.gpu_status", lambda: status)
    first, second, note = gpu_pair()
    assert (first, second, note.tone) == pair


# --- callouts and core objects -----------------------------------------------------------------


@pytest.mark.parametrize("tone, hue", [("ok", GREEN), ("warn", AMBER), ("error", RED),
                                       ("info", BLUE)])
def test_a_callout_is_tinted_and_ruled_in_its_palette_colour(tone: str, hue: Hue) -> None:
    shown = Callout(tone, "Heading <b>", "body & more", pre=True)
    page = shown._repr_html_()
    assert f"border-left:4px solid {hue.hex}" in page and background(tone) in page
    assert "Heading &lt;b&gt;" in page and "<pre" in page and "body &amp; more" in page
    assert repr(shown) == f"[{tone}] Heading <b>\nbody & more"


def test_html_of_and_text_of_show_a_core_object_as_its_table() -> None:
    rt = Runtime()
    rt.tensor([1.0, 2.0], device="cpu:0", dtype="f32")
    registry = rt.session("cpu:0").interpreter.handles
    assert html_of(registry) == table(registry.view())
    assert html_of("a <b>") == "<pre>a &lt;b&gt;</pre>"
    assert text_of(registry.view()).splitlines()[0] == registry.view().title


def test_show_displays_core_objects_as_html_and_callouts_as_themselves(
        monkeypatch: pytest.MonkeyPatch) -> None:
    display = pytest.importorskip("IPython.display")
    shown: list[Any] = []
    monkeypatch.setattr(display, "display", shown.append)
    rt = Runtime()
    note = Callout("info", "note")
    show(rt.trace, note)
    assert shown[0].data == table(rt.trace.view()) and shown[1] is note


def test_importing_the_package_in_an_ipython_shell_registers_the_table_formatters() -> None:
    """A real (terminal-less) IPython shell, in a fresh interpreter: `import routerlab.notebook`
    is all a notebook does, and from then on a `TableView` or any `Viewable` shows as HTML."""
    pytest.importorskip("IPython")
    probe = (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        "from routerlab.core.runtime import Runtime\n"
        "from routerlab.present.html import table\n"
        "rt = Runtime()\n"
        "before = shell.display_formatter.format(rt.trace)[0]\n"
        "import routerlab.notebook\n"
        "after = shell.display_formatter.format(rt.trace)[0]\n"
        "view = shell.display_formatter.format(rt.trace.view())[0]\n"
        "print('text/html' in before, after.get('text/html') == table(rt.trace.view()),\n"
        "      view.get('text/html') == table(rt.trace.view()))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "HOME": tempfile.gettempdir()})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True", "True"]


# --- what the notebooks import ------------------------------------------------------------------


def test_every_name_the_notebooks_import_is_exported() -> None:
    """The split into modules is invisible to the notebooks: `routerlab.notebook` still exports
    every name they import, and exactly the names of its modules."""
    import routerlab.notebook as package
    # importlib: the package's `lesson` and `sliders` are functions named like their modules
    names = ("diagram", "display", "lesson", "ordering", "panics", "plots",
             "scoreboard", "sliders", "stepping", "timelines", "wire")
    modules = [importlib.import_module(f"routerlab.notebook.{name}") for name in names]

    used = set()
    for path in sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            for names in re.findall(r"from routerlab\.notebook import ([\w, ]+)",
                                    "".join(cell["source"])):
                used |= {n.strip() for n in names.split(",")}
    assert {"banner", "lesson", "catch_panic", "Tape", "show"} <= used  # the scan works
    assert used <= set(package.__all__)
    assert set(package.__all__) == {name for m in modules for name in m.__all__}
    assert all(getattr(package, name) is not None for name in package.__all__)
