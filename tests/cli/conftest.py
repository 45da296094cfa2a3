"""What the CLI tests share: which error messages are usage errors (exit 2)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

USAGE_MESSAGES = ("is not JSON", "flat JSON list", "do not fill shape", "unknown scheme part",
                  "unknown quantized value", "unknown backend profile", "unknown calibration",
                  "either --values or --random", "give the tensor with", "--seed must be",
                  "RouterLab takes at most", "beyond f32's range", "NaN or infinite",
                  "unknown transfer policy", "unknown device kind", "unknown transfer path",
                  "no scenario file")
"""Messages of a bad value on the command line: exit 2, as for a bad flag. The rest (the model's
refusals, Burn's walls) exit 1 (tests/cli/test_cli_rules.py states the rule)."""


@pytest.fixture
def expected_exit() -> Callable[[str], int]:
    """The exit status an error with this message must give."""
    return lambda message: 2 if any(u in message for u in USAGE_MESSAGES) else 1
