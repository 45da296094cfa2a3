"""The fields of a scenario step: their TOML types, and the checks their values must pass.

A field is declared once, with its check, and that declaration is all the loader needs: a value
the check refuses is reported with the step and field before anything runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..base.devices import parse_device
from ..base.dtypes import DType
from ..base.errors import RouterLabError
from ..base.limits import MAX_DIMS
from ..base.policies import POLICY_NAMES, Policy
from ..base.request import Arrival, Transport
from ..quant import Calibration, parse_scheme


@dataclass(frozen=True)
class Field:
    """One field of a step: its TOML type(s), whether it is required, what it means, and an
    optional `check(value)` that returns a problem (or None) for values the type cannot judge."""

    types: tuple[type, ...]
    required: bool = True
    help: str = ""
    check: Callable[[Any], str | None] | None = None
    device: bool = False
    """The value is a device string that must be one of the file's `devices` (checked when the
    file is loaded, like a label)."""


def values_problem(value: Any) -> str | None:
    """Numbers, or rectangular nested lists of numbers, at most `MAX_DIMS` deep (refused when
    the file is loaded, so `validate` refuses them too)."""
    def shape(v: Any, depth: int) -> tuple[int, ...] | None:
        if isinstance(v, int | float | bool):
            return ()
        if isinstance(v, list) and v and depth <= MAX_DIMS:
            inner = {shape(x, depth + 1) for x in v}
            if len(inner) == 1:
                only = inner.pop()
                if only is not None:
                    return (len(v), *only)
        return None
    found = shape(value, 0)
    if found is None:
        deep = _depth(value) > MAX_DIMS
        return f"more than {MAX_DIMS} dimensions; RouterLab takes at most {MAX_DIMS}" if deep \
            else "expected a number or a non-empty, rectangular nested list of numbers"
    return None


def _depth(value: Any) -> int:
    depth = 0
    while isinstance(value, list) and value and depth <= MAX_DIMS:
        value, depth = value[0], depth + 1
    return depth


def floats_problem(value: Any) -> str | None:
    ok = all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    return None if ok and value else "expected a non-empty flat list of numbers"


def shape_problem(value: Any) -> str | None:
    ok = all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in value)
    if ok and len(value) > MAX_DIMS:
        return f"{len(value)} dimensions; RouterLab takes at most {MAX_DIMS}"
    return None if ok else "expected a list of non-negative integers"


def labels_problem(value: Any) -> str | None:
    ok = all(isinstance(label, str) for label in value)
    return None if ok and value else "expected a non-empty list of tensor labels"


def parse_problem(parse: Callable[[str], Any]) -> Callable[[Any], str | None]:
    """A check that a name parses (a dtype, a scheme, a policy, …): its error is the problem."""
    def check(value: Any) -> str | None:
        try:
            parse(value)
        except RouterLabError as error:
            return str(error)
        return None
    return check


COMMON = {
    "op": Field((str,), help="the step kind"),
    "note": Field((str,), False, "free text shown with the step"),
    "expect_error": Field((str,), False, "the step must fail: an error class name or a piece of "
                                         "its message; the run continues after it"),
}
VALUES = (list, int, float, bool)
POLICY = Field((str,), False, "a transfer policy: " + ", ".join(POLICY_NAMES),
               parse_problem(Policy.parse))
ARRIVAL = Field((str,), False, "which side of a same-peer transfer runs first: "
                + ", ".join(str(a) for a in Arrival), parse_problem(Arrival.parse))
def _peers_problem(value: Any) -> str | None:
    from ..remote.address import check_peers  # start-up cost only; no loop (the contracts)

    try:
        check_peers(value)
    except RouterLabError as error:
        return str(error)
    return None


PEERS = Field((dict,), False, "served peers by name: a table of NAME = \"ws://HOST:PORT\" "
                              "(routerlab serve); their devices run in those processes",
              _peers_problem)
TRANSPORT = Field((str,), False, "how a cross-peer download travels: "
                  + ", ".join(str(t) for t in Transport), parse_problem(Transport.parse))
TENSOR = Field((str,), help="label of the input tensor")
TENSORS = Field((list,), help="labels of the input tensors, in order", check=labels_problem)
NAME = Field((str,), help="label for the result")
DEVICE = Field((str,), help="a device string, one of the file's devices",
               check=parse_problem(parse_device), device=True)
DTYPE = Field((str,), help="a dtype name", check=parse_problem(DType.parse))
OPT_DTYPE = Field((str,), False, "a dtype name", parse_problem(DType.parse))
TENSOR_VALUES = Field(VALUES, help="nested list of numbers", check=values_problem)
SCHEME = Field((str,), help="a scheme string (docs/schemes.md)",
               check=parse_problem(parse_scheme))
FLOATS = Field((list,), False, "a flat list of numbers", floats_problem)
CALIBRATION = Field((str,), False, "minmax or absmean", parse_problem(Calibration.parse))
