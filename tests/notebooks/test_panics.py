"""`routerlab.notebook.panics`: an expected panic is kept and shown the way Rust prints it,
composed from `BurnPanic`'s fields; anything else propagates."""

from __future__ import annotations

import pytest

from routerlab.core.base.errors import BurnPanic, MissingHandleError, RouterLabError
from routerlab.core.router.handles import HandleContainer
from routerlab.core.router.ir import READ_ONLY, READ_WRITE, AddOp, TensorId, TensorIr
from routerlab.core.runtime import Runtime
from routerlab.notebook.panics import catch_panic


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
