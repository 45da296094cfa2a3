"""What the build track's tests share (test_build_track.py, test_build_track_glue.py,
test_build_track_server.py): a submission's observations beside the model's, and the model's
pieces a learner might paste in place of their own, each with the function the call trace
must then name (docs/exercises.md, "The build track")."""

from __future__ import annotations

import types
from typing import Any

from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.checks import suite_for
from routerlab.exercises.checks.base import Submission, to_data


def observed(exercise_id: str, source: str) -> tuple[list[Any], list[Any]]:
    """Every check's observations of `source` and of the model, on the catalog's variant; a
    probe that raised is recorded as what it raised (the harness fails that check)."""
    exercise = load_catalog().get(exercise_id)
    suite, params = suite_for(exercise), exercise.variant.defaults()
    module = types.ModuleType("submission")
    exec(compile(source, "submission.py", "exec"), module.__dict__)  # noqa: S102
    mine, model = Submission(module, params), suite.model_subject(params)
    return ([probed(c.probe, mine) for c in suite.checks if c.probe],
            [probed(c.probe, model) for c in suite.checks if c.probe])


def probed(probe: Any, subject: Any) -> Any:
    """A probe's observations, or what the subject's code raised."""
    try:
        return to_data(probe(subject))
    except Exception as error:  # noqa: BLE001 (a submission's failure is a result here)
        return [["raised", type(error).__name__, getattr(error, "got", None)]]


SUBSTITUTES: dict[str, tuple[str, str]] = {
    "HandleContainer, wrapped": ("""
from routerlab.core.router.handles import HandleContainer as _Model


class HandleContainer:
    def __init__(self):
        self.inner, self.counter = _Model(), 0

    def __getattr__(self, name):
        aliases = {"register_handle": "register", "get_handle": "get"}
        return getattr(self.inner, aliases.get(name, name))
""", "routerlab.core.router.handles:HandleContainer.__init__"),
    "HandleContainer": ("""
from routerlab.core.router.handles import HandleContainer as _Model


class HandleContainer(_Model):
    __slots__ = ()
    register_handle = _Model.register
""", "routerlab.core.router.handles:HandleContainer.__init__"),
    "RouterTensor": ("""
from routerlab.core.router.tensor import RouterTensor as _Model
from routerlab.core.router.ir import TensorIr


class RouterTensor(_Model):
    __slots__ = ()

    def to_ir_out(self):
        return TensorIr.uninit(self.id, self.shape, self.dtype)
""", "routerlab.core.router.tensor:RouterTensor.__init__"),
    "TensorInterpreter": ("""
from routerlab.core.fix.arms import QuantizedTransfers
from routerlab.core.router.interpreter import TensorInterpreter as _Model


class TensorInterpreter(_Model):
    container = HandleContainer

    def __init__(self, backend):
        super().__init__(backend, quantized=QuantizedTransfers())
""", "routerlab.core.router.interpreter:TensorInterpreter.__init__"),
    "q_into_data": ("""
from routerlab.core.fix.qtensor import q_into_data
""", "routerlab.core.fix.qtensor:q_into_data"),
    "can_move_to_device": ("""
from routerlab.core.fix.guard import can_move_to_device
""", "routerlab.core.fix.guard:can_move_to_device"),
    "move_quantized": ("""
from routerlab.core.fix.arms import carrier_for
from routerlab.core.base.policies import Policy


def move_quantized(policy, source, target, q):
    carrier = carrier_for(Policy.parse(policy))
    return carrier.put(target, carrier.take(source, q))
""", "routerlab.core.fix.arms:carrier_for"),
    "RouterClient": ("""
from routerlab.core.router.client import RouterClient as _Model


class RouterClient(_Model):
    def __init__(self, session, new_id):
        super().__init__(session, session, new_id)
""", "routerlab.core.router.client:RouterClient.__init__"),
    "to_device": ("""
from routerlab.exercises.checks.build_glue import model_to_device as to_device
""", "routerlab.core.fix.guard:can_move_to_device"),
    "Session": ("""
from routerlab.core.router.session import Session as _Model


class Session(_Model):
    def __init__(self, device, interpreter):
        super().__init__(interpreter, None)

    def run(self):
        while self.queue:
            self.run_one()

    def close(self):
        self.run()
        self.end("closed")
""", "routerlab.core.router.session:Session.__init__"),
    "TensorInterpreter.register_op": ("""
from routerlab.core.router.interpreter import TensorInterpreter as _Model

TensorInterpreter.register_op = lambda self, op: _Model.register_op(self, op)
""", "routerlab.core.router.interpreter:TensorInterpreter.register_op"),
    "RouterClient.read_tensor": ("""
from routerlab.core.router.client import RouterClient as _Model


def _read(self, tensor):
    self.server = self.session
    self.drain = lambda: None
    self._synced = lambda: None
    self.wire = None
    return _Model.read_tensor(self, tensor)


RouterClient.read_tensor = _read
""", "routerlab.core.router.client:RouterClient.read_tensor"),
}
"""The model's piece, by the name of the learner's it replaces (appended to a reference
solution, as a learner would paste it), and the function the call trace must name."""
