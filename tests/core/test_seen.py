"""`routerlab.core.scenario.seen`: where a Burn user sees a server panic, read from the file."""

from __future__ import annotations

from routerlab.core import BurnTodo, BurnUnimplemented
from routerlab.core.scenario import parse_scenario
from routerlab.core.scenario.seen import seen_at

HEAD = """
devices = ["cpu:0", "cpu:1"]
[[steps]]
op = "tensor"
name = "x"
values = [1.0]
device = "cpu:0"
[[steps]]
op = "tensor"
name = "y"
values = [1.0]
device = "cpu:1"
[[steps]]
op = "clone"
tensor = "x"
name = "x2"
"""


def _step(text: str) -> str:
    return "[[steps]]\n" + text.strip() + "\n"


def _server_panic(session: str = "cpu:0") -> BurnTodo:
    panic = BurnTodo("crates/burn-router/src/interpreter.rs:1390-1391")
    panic.session = session
    return panic


def test_a_read_of_another_session_does_not_see_it() -> None:
    flow = parse_scenario(HEAD + _step('op = "read"\ntensor = "y"') +
                          _step('op = "read"\ntensor = "x2"'))
    seen = seen_at(flow, 3, _server_panic())
    assert seen is not None and seen.step == 5 and "cpu:0" in seen.why


def test_a_read_of_a_tensor_moved_out_of_the_dead_session_waits_for_ever() -> None:
    flow = parse_scenario(HEAD + _step('op = "to_device"\ntensor = "x2"\ndevice = "cpu:1"\n'
                                       'name = "moved"') + _step('op = "read"\ntensor = "moved"'))
    seen = seen_at(flow, 3, _server_panic())
    assert seen is not None and seen.step == 5 and "waits for ever" in seen.why


def test_a_failing_read_is_itself_where_the_panic_shows() -> None:
    flow = parse_scenario(HEAD + _step('op = "read"\ntensor = "x"'))
    seen = seen_at(flow, 4, _server_panic())
    assert seen is not None and seen.step == 4


def test_no_later_answer_means_never_and_a_client_panic_is_seen_where_raised() -> None:
    flow = parse_scenario(HEAD)
    seen = seen_at(flow, 3, _server_panic())
    assert seen is not None and seen.step is None and "ends without seeing it" in seen.why
    assert seen_at(flow, 3, BurnUnimplemented("crates/burn-router/src/ops/qtensor.rs:20")) is None
    assert seen_at(flow, 3, None) is None
