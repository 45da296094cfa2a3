"""The notebook display helpers (`routerlab.notebook`), tested without a kernel.

The executed notebooks only show that the helpers run; these tests pin what they show: the
step-through's pages, slider and static fallback, the scoreboard's numbers against the core's own
counters, panics printed the way Rust prints them, the answer check, the environment banner and
the plot theme. No kernel is started and nbformat is not imported.
"""

from __future__ import annotations

import html
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from routerlab.core.devices import automatic_path, parse_device
from routerlab.core.errors import BurnPanic, MissingHandleError, RouterLabError
from routerlab.core.gpu import FORCE_NUMPY_ENV, GpuStatus
from routerlab.core.handles import HandleContainer
from routerlab.core.ir import READ_ONLY, READ_WRITE, AddOp, TensorId, TensorIr
from routerlab.core.runtime import Runtime
from routerlab.core.view import to_html
from routerlab.notebook import (
    Callout,
    Scoreboard,
    Stepper,
    Tape,
    WrongAnswer,
    banner,
    catch_panic,
    check,
    gpu_pair,
    html_of,
    plot_theme,
    seal_explanation,
    stepper,
)

AMBER, GREEN = "#f59e0b", "#10b981"  # the solid rules of the "warn" and "ok" callouts

# --- the step-through ------------------------------------------------------------------------


@pytest.fixture
def taped() -> tuple[Runtime, Tape, list[list[int]]]:
    """Notebook 02's program on a tape, with cpu:0's ids read from the runtime after each line."""
    rt = Runtime()
    tape = Tape(rt)
    seen: list[list[int]] = []

    def snap(caption: str) -> None:
        tape.snap(caption)
        seen.append(rt.handle_ids("cpu:0"))

    a = rt.tensor([1.0, 2.0, 3.0], device="cpu:0", dtype="f32");  snap("a = tensor")  # noqa: E702
    b = rt.clone(a);                                              snap("b = a.clone()")  # noqa: E702
    rt.drop(a);                                                   snap("drop(a): b is left")  # noqa: E702
    rt.mul(rt.clone(b), b);                                       snap("c = b.clone() * b")  # noqa: E702
    return rt, tape, seen


def test_tape_records_one_snapshot_per_line_as_the_core_reports_it(
        taped: tuple[Runtime, Tape, list[list[int]]]) -> None:
    rt, tape, seen = taped
    assert [s.caption for s in tape.snaps] == ["a = tensor", "b = a.clone()",
                                               "drop(a): b is left", "c = b.clone() * b"]
    assert [s.handles["cpu:0"] for s in tape.snaps] == seen == [[0], [0], [0], [1]]
    # the events of each snapshot are exactly the trace, cut at the snapshots
    assert [e for s in tape.snaps for e in s.events] == rt.trace.read()
    sent = [[e.kind for e in s.events if e.kind in ("op", "drop")] for s in tape.snaps]
    assert sent[1] == sent[2] == []  # neither a clone nor dropping one of two clones sends


def test_stepper_has_a_page_per_snapshot_showing_that_snapshot(
        taped: tuple[Runtime, Tape, list[list[int]]]) -> None:
    rt, tape, _ = taped
    steps = tape.stepper()
    total = len(tape.snaps)
    for index, snap in enumerate(tape.snaps):
        page = steps.page(index)
        assert f"Step {index + 1} / {total}</b>: {html.escape(snap.caption)}" in page
        assert to_html(snap.registries["cpu:0"]) in page  # the registry as it was then
        for event in snap.events:
            assert html.escape(event.detail) in page
        # a line the trace recorded nothing for says so instead of showing an empty table
        assert ("Nothing was sent" in page) == (not snap.events)
    assert "Nothing was sent" not in steps.page(3)  # the mul
    assert len({steps.page(i) for i in range(total)}) == total
    with pytest.raises(IndexError):
        steps.page(total)


def test_widget_slider_spans_the_snapshots_and_moves_the_output_pane(
        taped: tuple[Runtime, Tape, list[list[int]]]) -> None:
    pytest.importorskip("ipywidgets")
    _, tape, _ = taped
    steps = tape.stepper(title="Step through the program")
    heading, controls, pane = steps.widget().children
    back, slider, ahead = controls.children
    assert "Step through the program" in heading.value
    assert (slider.min, slider.max, slider.value) == (0, len(tape.snaps) - 1, 0)
    assert pane.value == steps.page(0)
    for index in (2, 3, 0, 1):  # moving the slider shows that step's page
        slider.value = index
        assert pane.value == steps.page(index)
    ahead.click()
    assert slider.value == 2 and pane.value == steps.page(2)
    back.click(); back.click(); back.click()  # noqa: E702  (stops at the first step)
    assert slider.value == 0 and pane.value == steps.page(0)
    slider.value = slider.max
    ahead.click()  # and at the last
    assert slider.value == slider.max and pane.value == steps.page(slider.max)


def test_static_fallback_lists_every_step(
        taped: tuple[Runtime, Tape, list[list[int]]], monkeypatch: pytest.MonkeyPatch) -> None:
    _, tape, _ = taped
    steps = tape.stepper()
    static = steps.static_html()
    assert static == to_html(tape.view())
    for index, snap in enumerate(tape.snaps):
        assert f"{index + 1}</td><td style='text-align:left;vertical-align:top'>" \
               f"{html.escape(snap.caption)}</td>" in static
    assert "mul(#0 ReadOnly, #0 ReadWrite) -&gt; #1" in static  # what line 4 sent

    def no_widgets(self: Stepper) -> Any:
        raise ImportError("no ipywidgets")

    monkeypatch.setattr(Stepper, "widget", no_widgets)
    bundle = steps._repr_mimebundle_()
    assert bundle == {"text/plain": f"<{steps.title}: {len(tape.snaps)} steps>",
                      "text/html": static}


def test_display_carries_the_widget_and_the_static_table() -> None:
    pytest.importorskip("ipywidgets")
    steps = stepper([("one <first>", "body 1"), ("two", "body 2"), ("three", "body 3")],
                    title="Three")
    bundle = steps._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == "<Three: 3 steps>"
    static = bundle["text/html"]
    for number, caption in enumerate(["one <first>", "two", "three"], start=1):
        assert f">{number}</td>" in static and html.escape(caption) in static
    assert "&lt;first&gt;" in steps.page(0) and "<first>" not in steps.page(0)
    assert html_of("body 2") in steps.page(1)


def test_a_stepper_needs_a_frame() -> None:
    with pytest.raises(ValueError, match="at least one frame"):
        Stepper([])


# --- the scoreboard --------------------------------------------------------------------------


def _copies(rt: Runtime) -> int:
    return sum(rt.session(d).interpreter.backend.copies for d in rt.devices)


def _wire(rt: Runtime, mark: int, *kinds: str) -> int:
    return sum(e.nbytes for e in rt.trace.read(mark) if e.kind in kinds)


@pytest.mark.parametrize("target, path, shared, expected_path, fate", [
    ("cpu:0", None, False, "same", "same tensor"),
    ("cpu:1", None, True, "local", "copied"),
    ("cpu:1", None, False, "local", "moved"),
    ("peer2/cpu:0", None, True, "bytes", "copied"),
    ("peer2/cpu:0", None, False, "bytes", "moved"),
    ("cpu:1@ndarray", None, True, "bridge", "copied"),
    ("cpu:2", "bytes", False, "bytes", "moved"),
])
def test_scoreboard_scores_a_move_with_the_cores_own_numbers(
        target: str, path: str | None, shared: bool, expected_path: str, fate: str) -> None:
    rt = Runtime()
    board = Scoreboard(rt)
    tensor = rt.tensor(np.ones((4, 8)), device="cpu:0", dtype="f32")  # 128 bytes
    keep = rt.clone(tensor) if shared else None
    source_id = int(tensor.id)
    mark, copies, copied = len(rt.trace), _copies(rt), rt.bytes_copied()

    moved = board.move(tensor, target, path)

    row = board.rows[-1]
    assert row["move"] == f"cpu:0 → {moved.device}"
    assert row["path"] == expected_path
    if path is None:
        assert row["path"] == str(automatic_path(parse_device("cpu:0"), parse_device(target)))
    assert row["ids"] == f"#{source_id} → #{int(moved.id)}"
    assert row["source"] == fate
    assert (source_id in rt.handle_ids("cpu:0")) == (fate != "moved")
    assert row["copies"] == _copies(rt) - copies  # the backends' counters
    assert row["host bytes"] == _wire(rt, mark, "publish", "download")
    assert row["device bytes"] == _wire(rt, mark, "copy", "bridge")
    if expected_path in ("local", "bytes"):  # one upload/readback/copy per byte counted
        assert row["host bytes"] + row["device bytes"] == rt.bytes_copied() - copied
    expected_bytes = {"same": (0, 0), "local": (0, 128), "bytes": (256, 0), "bridge": (0, 128)}
    assert (row["host bytes"], row["device bytes"]) == expected_bytes[expected_path]
    assert keep is None or rt.handle_ids("cpu:0") == [source_id]


def test_scoreboard_table_lists_every_move_in_order() -> None:
    rt = Runtime()
    board = Scoreboard(rt)
    big = rt.tensor(np.ones((4, 8)), device="cpu:0", dtype="f32")
    same = board.move(big, "cpu:0")
    board.move(rt.clone(same), "cpu:1")
    board.move(same, "peer2/cpu:0")
    view = board.view()
    assert [r[0] for r in view.rows] == ["cpu:0 → cpu:0", "cpu:0 → cpu:1", "cpu:0 → peer2/cpu:0"]
    assert view.rows[0][4:] == [None, None, None]  # zeros read as blanks
    assert sum(r["copies"] for r in board.rows) == _copies(rt) - 1  # all but the upload
    assert "cpu:0 → peer2/cpu:0" in repr(board) and "Transfer scoreboard" in board._repr_html_()


# --- panics ----------------------------------------------------------------------------------


def test_an_expected_burn_panic_is_kept_and_shown_the_way_rust_prints_it() -> None:
    registry = HandleContainer("demo")
    registry.register(TensorId(7), "buffer of #7")
    registry.get(TensorId(7), READ_WRITE)  # the last use: the entry is gone
    with catch_panic() as caught:
        registry.get(TensorId(7), READ_ONLY)
    assert isinstance(caught.error, MissingHandleError) and caught.panicked
    assert caught.source == "crates/burn-ir/src/handle.rs:97"
    callout = caught._callout()
    assert (callout.tone, callout.heading, callout.pre) == (
        "error", "Burn panics (MissingHandleError)", True)
    assert callout.body == ("thread 'main' panicked at crates/burn-ir/src/handle.rs:97:\n"
                            "Should have handle for tensor TensorId { value: 7 }")
    shown = caught._repr_html_()
    assert "<pre" in shown and "thread &#x27;main&#x27; panicked at crates/burn-ir/src/handle.rs" \
        in shown
    assert repr(caught).startswith("[error] Burn panics (MissingHandleError)\nthread 'main'")


def test_a_session_panic_names_the_session_and_keeps_burns_text_on_the_panic_line() -> None:
    rt = Runtime()
    a = rt.tensor([1.0, 2.0], device="cpu:0", dtype="f32")
    wrong = TensorIr(a.id, a.shape, READ_WRITE, a.dtype)  # ReadWrite twice: the second read fails
    out = TensorIr.uninit(rt.client("cpu:0").create_empty_handle(), a.shape, a.dtype)
    with catch_panic() as caught:
        rt.submit("cpu:0", AddOp(wrong, wrong, out))
    assert isinstance(caught.error, BurnPanic)
    lines = caught._callout().body.splitlines()
    assert lines[0] == "thread 'cpu:0' panicked at crates/burn-ir/src/handle.rs:97:"
    assert lines[1] == caught.error.message == "Should have handle for tensor TensorId { value: 0 }"
    # the model's own note (the session ended) is still shown, after Burn's text
    assert "session cpu:0 panicked and has ended" in "\n".join(lines[2:])
    assert rt.session("cpu:0").ended is not None


def test_other_routerlab_errors_are_caught_and_shown_by_name() -> None:
    rt = Runtime()
    w = rt.to_device(rt.tensor([6.0], device="cpu:0", dtype="f32"), "cpu:1", path="bytes")
    with catch_panic() as caught:
        rt.to_device(w, "peer2/cpu:0", path="local")
    assert isinstance(caught.error, RouterLabError) and not isinstance(caught.error, BurnPanic)
    callout = caught._callout()
    assert callout.tone == "error" and callout.heading == type(caught.error).__name__
    assert callout.body == str(caught.error) and "panicked at" not in callout.body


def test_a_non_routerlab_exception_is_not_swallowed() -> None:
    with pytest.raises(KeyError, match="a real bug"):
        with catch_panic() as caught:
            raise KeyError("a real bug")
    assert caught.error is None
    with pytest.raises(RouterLabError):  # given kinds replace the default
        with catch_panic(KeyError):
            raise RouterLabError("not a KeyError")
    with catch_panic(KeyError) as chosen:
        raise KeyError("expected here")
    assert isinstance(chosen.error, KeyError)


def test_no_panic_at_all_is_reported_not_passed_over_in_silence() -> None:
    with catch_panic() as caught:
        Runtime().tensor([1.0], device="cpu:0", dtype="f32")
    assert not caught.panicked and caught.error is None
    assert (caught.message, caught.source) == ("", None)
    assert repr(caught) == "[ok] No panic: the operation went through."
    assert "No panic: the operation went through." in caught._repr_html_()


# --- the closing exercise's check ------------------------------------------------------------


class _Truth:
    """A `truth` callable that counts how often it is asked."""

    def __init__(self, value: Any) -> None:
        self.value, self.calls = value, 0

    def __call__(self) -> Any:
        self.calls += 1
        return self.value


def test_a_right_answer_is_ok_and_opens_the_sealed_explanation() -> None:
    truth = _Truth([2])
    explain = seal_explanation([2], "#2 survives: it was never read ReadWrite.")
    assert "survives" not in explain  # sealed: the notebook does not give it away
    result = check([2], truth, hint="count the reads", explain=explain)
    assert (result.tone, result.heading) == ("ok", "Correct: [2].")
    assert result.body == "#2 survives: it was never read ReadWrite."
    assert truth.calls == 1
    assert GREEN in result._repr_html_()
    plain = check(" Get_Tensor ", "get_tensor", explain="the source session's arm")
    assert (plain.tone, plain.body) == ("ok", "the source session's arm")


def test_an_explanation_sealed_for_another_answer_does_not_open() -> None:
    result = check(3, 3, explain=seal_explanation(4, "the old model's story"))
    assert result.tone == "ok" and "did not open" in result.body


def test_a_wrong_answer_raises_with_the_hint() -> None:
    truth = _Truth(8000)
    with pytest.raises(WrongAnswer) as wrong:
        check(4000, truth, hint="the bytes path reads back once and uploads once",
              explain=seal_explanation(8000, "secret"))
    assert wrong.value.hint == "the bytes path reads back once and uploads once"
    assert str(wrong.value) == ("Not quite: 4000 is not what the model does.\n"
                                "Hint: the bytes path reads back once and uploads once")
    assert "secret" not in str(wrong.value)
    assert isinstance(wrong.value, AssertionError) and truth.calls == 1
    assert wrong.value._render_traceback_()[-1].endswith(
        "Hint: the bytes path reads back once and uploads once\x1b[0m")


def test_the_placeholder_is_not_answered_yet_and_the_model_is_not_asked() -> None:
    truth = _Truth(1)
    result = check(..., truth, hint="h", explain=seal_explanation(1, "e"))
    assert isinstance(result, Callout) and result.tone == "info"
    assert result.heading.startswith("Not answered yet")
    assert truth.calls == 0

    def must_not_run() -> Any:
        raise AssertionError("truth was called for the placeholder")

    check(..., must_not_run)


@pytest.mark.parametrize("answer, truth, rel", [
    (2.53, 2.5312, 5e-3),        # three significant digits (notebook 06)
    ([1, 2], np.array([1, 2]), 1e-6),
    ([2, 1], {1, 2}, 1e-6),      # a set takes a list in any order
    (7, np.int64(7), 1e-6),
])
def test_check_accepts_equivalent_answers(answer: Any, truth: Any, rel: float) -> None:
    assert check(answer, truth, rel=rel).tone == "ok"


@pytest.mark.parametrize("answer, truth", [(True, 1), (1, True), (2.6, 2.5312), ([1, 2], [1])])
def test_check_refuses_near_misses(answer: Any, truth: Any) -> None:
    with pytest.raises(WrongAnswer):
        check(answer, truth, rel=5e-3)


# --- the banner ------------------------------------------------------------------------------


@pytest.fixture
def fresh_probe() -> Iterator[None]:
    """`gpu_status` is cached per process: start and leave the probe uncached."""
    from routerlab.core.gpu import gpu_status

    gpu_status.cache_clear()
    yield
    gpu_status.cache_clear()


def test_banner_is_amber_with_the_reason_when_no_gpu_is_usable(
        monkeypatch: pytest.MonkeyPatch, fresh_probe: None) -> None:
    monkeypatch.setenv(FORCE_NUMPY_ENV, "1")  # the real probe, answering "not usable"
    shown = banner()
    assert shown.tone == "warn" and shown.heading.startswith("No usable GPU")
    assert f"Why: {FORCE_NUMPY_ENV} is set: the numpy backend is forced." in shown.body
    assert AMBER in shown._repr_html_()

    monkeypatch.setattr("routerlab.core.gpu.gpu_status",
                        lambda: GpuStatus(False, "CuPy is not installed (ImportError)"))
    assert "Why: CuPy is not installed (ImportError)." in banner().body


def test_banner_is_green_when_a_gpu_is_usable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("routerlab.core.gpu.gpu_status", lambda: GpuStatus(
        True, "CuPy and a CUDA GPU are usable", "13.3.0", 2, "NVIDIA H200"))
    shown = banner()
    assert shown.tone == "ok"
    assert shown.heading == "GPU available: NVIDIA H200 × 2 (CuPy 13.3.0)"
    assert GREEN in shown._repr_html_() and AMBER not in shown._repr_html_()


@pytest.mark.parametrize("status, pair", [
    (GpuStatus(True, "usable", "13.3.0", 2, "H200"), ("cuda:0", "cuda:1", "ok")),
    (GpuStatus(True, "usable", "13.3.0", 1, "H200"), ("cuda:0", "peer2/cuda:0", "ok")),
    (GpuStatus(False, "no GPU here"), ("cpu:1@cubecl", "cpu:2@cubecl", "warn")),
])
def test_gpu_pair_follows_gpu_status(monkeypatch: pytest.MonkeyPatch, status: GpuStatus,
                                     pair: tuple[str, str, str]) -> None:
    monkeypatch.setattr("routerlab.core.gpu.gpu_status", lambda: status)
    first, second, note = gpu_pair()
    assert (first, second, note.tone) == pair


# --- the plot theme --------------------------------------------------------------------------


@pytest.fixture
def pyplot(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """matplotlib on the Agg backend, its rcParams restored after the test."""
    matplotlib = pytest.importorskip("matplotlib")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    import matplotlib.pyplot as plt

    with matplotlib.rc_context():
        yield plt
    plt.close("all")


def test_plot_theme_makes_figures_transparent_and_chooses_svg(
        pyplot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    backend_inline = pytest.importorskip("matplotlib_inline.backend_inline")
    formats: list[tuple[Any, ...]] = []
    monkeypatch.setattr(backend_inline, "set_matplotlib_formats",
                        lambda *f, **kw: formats.append(f))
    plot_theme()
    assert formats == [("svg",)]
    figure, axes = pyplot.subplots()
    assert figure.get_facecolor()[3] == 0 and axes.get_facecolor()[3] == 0
    import matplotlib

    assert matplotlib.rcParams["savefig.transparent"] is True
    assert matplotlib.rcParams["savefig.facecolor"] == "none"


def test_plot_theme_without_matplotlib_inline_still_themes(
        pyplot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib_inline.backend_inline", None)  # not importable
    plot_theme()
    figure, axes = pyplot.subplots()
    assert figure.get_facecolor()[3] == 0 and axes.get_facecolor()[3] == 0
