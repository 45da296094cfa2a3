"""What every check of the build track shares (docs/exercises.md, "The build track").

Each build checkpoint asks for whole classes with Burn's method names, not a function plugged
into the model. A probe drives the learner's class through a script of calls and records what
each call did (`did`: a return, Burn's panic text word for word, a refusal) and what the object
holds afterwards; the model side runs the same script on RouterLab's own class behind an adapter
in the learner's signature, so the verdict is "behaves as the model does", never "looks like the
reference solution". Every probe runs under the call trace (`traced`, over
`build_trace.watching`), which names the first function of the model's router logic a
submission ran. One module per checkpoint: `build_handles` (build-1), `build_tensors` (build-2),
`build_interpreter` (build-3), `build_bytes` (build-4), `build_policies` (build-5),
`build_client` (build-6), `build_glue` (build-7: `to_device` on the learner's whole router),
`build_server` (build-8: the learner's session FIFO and op arms under that flow)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import ModuleType
from typing import Any

from ...core import (
    BurnPanic,
    UseAfterDropError,
)
from ...core.base.errors import TransferRejected
from .base import CheckFailure, Observation, Probe, Subject, to_data
from .build_trace import watching

Call = Callable[[], Any]


def did(call: Call) -> list[Any]:
    """What one call did: ["returned", value], or ["panics", Burn's text] for a Burn panic
    (the class the learner raised is not compared: Burn has one `panic!`, the text is what a
    user reads), or ["refused", why] for the model's stand-in of Rust's borrow checker (a use
    after drop) and for a transfer its policy refuses. Anything else is the learner's code
    failing, and propagates."""
    try:
        return ["returned", to_data(call())]
    except NotImplementedError:
        raise
    except BurnPanic as error:
        return ["panics", error.message]
    except UseAfterDropError:
        return ["refused", "use after drop"]
    except TransferRejected:
        return ["refused", "TransferRejected"]


TRACE = ("the first function of RouterLab's router logic your classes ran (None: all yours)")


def traced(probe: Probe) -> Probe:
    """The probe, run with the call trace on (build_trace.py), its last observation the first
    router-logic function the learner's code ran (the model's run is the model: none). A
    learner's code that fails after it let the model's router run is told which function."""

    @functools.wraps(probe)
    def run(sub: Subject) -> Observation:
        if sub.is_model:
            return [*probe(sub), (TRACE, None)]
        module = getattr(sub, "module", None)
        with watching(*([module] if isinstance(module, ModuleType) else [])) as watch:
            try:
                seen = probe(sub)
            except (CheckFailure, NotImplementedError):
                raise
            except Exception as error:
                if watch.first is None:
                    raise
                raise CheckFailure(
                    f"your code ran RouterLab's own {watch.first} and then failed "
                    f"({type(error).__name__}: {error}); this checkpoint asks you to write that "
                    "part yourself", got=watch.first, hint=1) from None
        return [*seen, (TRACE, watch.first)]

    return run
