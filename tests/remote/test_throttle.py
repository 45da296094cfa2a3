"""A peer's stderr stays readable under a flood of refusals: `Throttle` writes `burst` lines a
window and says how many it left out (core/serving/throttle.py)."""

from __future__ import annotations

from routerlab.core.serving.throttle import Throttle


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_flood_is_cut_to_a_burst_a_window_and_counted() -> None:
    lines: list[str] = []
    clock = Clock()
    say = Throttle(lines.append, burst=3, per=10.0, clock=clock)
    for i in range(50):
        say(f"refused #{i}")
    assert lines == ["refused #0", "refused #1", "refused #2"]
    clock.now += 10.0
    say("refused #50")
    assert lines[3:] == ["(47 more such lines in 10 s were not written)", "refused #50"]


def test_a_quiet_peer_writes_every_line() -> None:
    lines: list[str] = []
    clock = Clock()
    say = Throttle(lines.append, burst=2, per=1.0, clock=clock)
    for i in range(5):
        say(f"line {i}")
        clock.now += 0.6
    assert lines == [f"line {i}" for i in range(5)]


def test_a_library_error_is_one_throttled_line_without_its_traceback() -> None:
    from routerlab.core.serving.throttle import library_logger
    lines: list[str] = []
    say = Throttle(lines.append, burst=3, per=10.0, clock=Clock())
    logger = library_logger(say)
    for _ in range(50):
        try:
            raise KeyError("Origin")
        except KeyError:
            logger.error("process_request failed", exc_info=True)
    logger.info("connection open")  # below a warning: not written
    assert lines == ["websockets: process_request failed: KeyError"] * 3
