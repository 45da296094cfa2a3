"""The facade: imports, defaults, and what it promises to the CLI and notebooks."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from routerlab.core import BurnTodo, Runtime, TableView
from routerlab.core.base.errors import RouterLabError


def test_importing_the_core_pulls_in_no_face() -> None:
    """`import routerlab.core` must not import typer, rich, IPython or cupy."""
    code = ("import sys, routerlab.core; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'typer', 'rich', 'IPython', 'cupy', 'click'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_documented_example() -> None:
    rt = Runtime()
    x = rt.tensor([[1, 2], [3, 4]], device="cpu:0", dtype="f32")
    y = rt.add(x, x.clone())
    z = rt.to_device(y, "cpu:1", path=None)
    np.testing.assert_array_equal(rt.read(z), [[2, 4], [6, 8]])
    assert isinstance(rt.registry("cpu:0"), TableView) and rt.registry("cpu:0").rows == []
    assert [r[0] for r in rt.registry("cpu:1").rows] == [int(z.id)]
    assert [e.kind for e in rt.explain(z.id)][-2:] == ["get", "read"] and rt.trace.step > 0


def test_read_keeps_the_tensor_unless_consumed(rt: Runtime) -> None:
    x = rt.tensor([1.0], "cpu:0")
    rt.read(x)
    assert x.alive and rt.handle_ids("cpu:0") == [int(x.id)]
    rt.read(x, consume=True)
    assert not x.alive and rt.handle_ids("cpu:0") == []


def test_ids_come_from_one_counter_for_every_device(rt: Runtime) -> None:
    """The remote client's process-wide counter
    (crates/burn-remote/src/client/service/registry.rs:18-20)."""
    ids = [int(rt.tensor([1.0], d).id) for d in ("cpu:0", "cpu:1", "peer2/cpu:0", "cpu:0")]
    assert ids == [0, 1, 2, 3]


def test_devices_are_created_on_first_use_without_a_list() -> None:
    rt = Runtime()
    rt.tensor([1.0], "cpu:5@ndarray")
    assert [str(d) for d in rt.devices] == ["cpu:5@ndarray"]


def test_float_errors_are_quiet_in_the_sessions_and_untouched_outside() -> None:
    """Rust float arithmetic never traps (overflow is inf, 0/0 NaN): the sessions run in a
    context of their own where numpy does not warn, and the caller's numpy state is left as it
    was, a raising one included."""
    import warnings

    rt = Runtime(["cpu:0"])
    big = rt.tensor([3e38, 0.0], "cpu:0", "f32")
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        doubled = rt.add(big, rt.clone(big))
        nan = rt.mul(rt.cast(doubled, "f32"), rt.tensor([0.0, 0.0], "cpu:0", "f32"))
        assert rt.read(rt.cast(rt.tensor([float("inf")], "cpu:0", "f32"), "i32")).tolist() == [
            2**31 - 1]
        assert np.geterr()["over"] == "raise"
    assert rt.read(nan)[0] != rt.read(nan)[0]  # inf * 0 is NaN
    before = np.geterr()
    rt.add(rt.tensor([1.0], "cpu:0", "f32"), rt.tensor([2.0], "cpu:0", "f32"))
    assert np.geterr() == before


def test_the_typed_option_names_are_the_options() -> None:
    """`OptionNames` (what mypy checks `Runtime(..., name=value)` against) lists exactly
    `RuntimeOptions`' fields, with the same annotations."""
    from dataclasses import fields

    from routerlab.core.runtime_options import OptionNames, RuntimeOptions

    declared = {f.name: str(f.type) for f in fields(RuntimeOptions)}
    typed = {name: getattr(annotation, "__forward_arg__", annotation)  # postponed: strings
             for name, annotation in OptionNames.__annotations__.items()}
    assert typed == declared


def test_an_unknown_option_is_refused_with_the_list() -> None:
    with pytest.raises(RouterLabError, match="no option 'polcy'; its options: policy, legacy"):
        Runtime(["cpu:0"], polcy="legacy")  # type: ignore[call-arg]


def test_a_failed_move_forgets_the_device_its_hop_created() -> None:
    """A hop creates its target's session inside its step, so the step's rollback forgets a
    device the failed move made (Burn's panic is the target's; the runtime is as it was)."""
    rt = Runtime()
    q = rt.quantize(rt.tensor([1.0, 2.0], "cpu:0"), "q8s")
    with pytest.raises(BurnTodo):
        rt.to_device(q, "cpu:1", policy="legacy")
    assert [str(d) for d in rt.devices] == ["cpu:0"]
