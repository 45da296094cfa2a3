"""Which of the model's router functions ran while a learner's class did its work: the call
trace of the build track (docs/exercises.md, "The build track").

A build checkpoint asks for a class of Burn's router written by the learner, who may use the
model's numpy backend, dtypes, schemes, quantization kernels and value types, and nothing of the
model's router logic. `watching()` records, for the length of a `with` block, every call of a
function defined in a module of `ROUTER_LOGIC` (unless `ALLOWED` names it); `Watch.first` is
the first, as `module:qualname`, which the check reports as an observation (the model's own run
is the model and reports none, so a submission that lets a model class or function do the work
fails and is told which one ran).

How: the grading process forbids `sys.setprofile` and `sys.settrace` to all code (the guard's
audit hook, routerlab.exercises.engine.guard), so the trace is made by wrapping instead. Every
reference to a router-logic function that a RouterLab module or the learner's module holds
(a module attribute, a method in a class's `__dict__`) is replaced by a recording wrapper, and
put back when the block ends, whatever happened. A call through any of those references is
seen; code the learner runs through a module or class attribute, even one looked up at run
time, is too.

`ROUTER_LOGIC` and `ALLOWED` are the one place that says what a learner may use; the build
track's tests substitute each model class for the learner's and see this trace name it.
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

ROUTER_LOGIC = (
    "routerlab.core.router.handles",
    "routerlab.core.router.tensor",
    "routerlab.core.router.client",
    "routerlab.core.router.interpreter",
    "routerlab.core.router.session",
    "routerlab.core.router.server",
    "routerlab.core.router.port",
    "routerlab.core.fix",
    "routerlab.core.moves",
    "routerlab.core.runtime",
    "routerlab.core.fastpath",
    "routerlab.core.remote",
    "routerlab.core.serving",
)
"""Packages and modules whose functions are the model's router: what a learner writes."""
ALLOWED = (
    "routerlab.core.fix.qtensor:QPrimitive.",
    "routerlab.core.fix.qtensor:QuantizeParams.",
)
"""`module:qualname` prefixes inside `ROUTER_LOGIC` that are value types, not logic: a
`QPrimitive` is the quantized handle a learner builds and reads, `QuantizeParams` what a
`QuantizeOp` carries besides its scheme (Burn's `QuantizationParametersIr`)."""


@dataclass
class Watch:
    """What one `watching()` block saw."""

    first: str | None = None


def is_router_logic(module: str, qualname: str) -> bool:
    """Whether a function of `module` named `qualname` is the model's router logic."""
    return _in_router_logic(module) and not any(f"{module}:{qualname}".startswith(a)
                                                for a in ALLOWED)


@functools.lru_cache(maxsize=4096)
def _in_router_logic(module: str) -> bool:
    """A trace asks this of thousands of functions' modules per check: answered once per name
    (the prefix tests were most of a build check's time in the jail)."""
    return any(module == m or module.startswith(m + ".") for m in ROUTER_LOGIC)


@functools.lru_cache(maxsize=4096)
def _searched(module: str) -> bool:
    """Whether the classes of `module` have their methods searched (a router module's)."""
    return any(module.startswith(m) for m in ROUTER_LOGIC)


def _logic(value: Any) -> bool:
    return type(value) is types.FunctionType and is_router_logic(
        str(value.__module__), value.__qualname__)


def _recording(function: types.FunctionType, watch: Watch) -> Callable[..., Any]:
    name = f"{function.__module__}:{function.__qualname__}"

    @functools.wraps(function)
    def recorded(*args: Any, **kwargs: Any) -> Any:
        if watch.first is None:
            watch.first = name
        return function(*args, **kwargs)

    return recorded


@contextmanager
def watching(*learner: types.ModuleType) -> Iterator[Watch]:
    """Record the first router-logic function called inside the block, through any reference
    RouterLab's modules or the `learner`'s modules hold."""
    watch = Watch()
    wrappers: dict[int, Callable[..., Any]] = {}
    undo: list[tuple[Any, str, Any]] = []

    def wrap(owner: Any, name: str, value: Any) -> None:
        if id(value) not in wrappers:
            wrappers[id(value)] = _recording(value, watch)
        undo.append((owner, name, value))
        setattr(owner, name, wrappers[id(value)])

    modules = [m for n, m in list(sys.modules.items())
               if isinstance(m, types.ModuleType) and n.startswith("routerlab.")] + list(learner)
    classes: dict[int, type] = {}
    try:
        for module in modules:
            for name, value in list(vars(module).items()):
                if _logic(value):
                    wrap(module, name, value)
                elif isinstance(value, type) and _searched(str(value.__module__)):
                    classes[id(value)] = value
        for cls in classes.values():
            for name, value in list(vars(cls).items()):
                if _logic(value):
                    wrap(cls, name, value)
        yield watch
    finally:
        for owner, name, value in reversed(undo):
            setattr(owner, name, value)
