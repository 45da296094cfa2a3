"""Every implement exercise refuses a thin wrapper around the model's own function (issue 39,
item 3): the catalog's `delegation` list drives the refusal, in the jail (the function is absent
from its image) and in the sandbox (the guard), and lint refuses an implement exercise that
names none."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from routerlab.exercises.authoring.lint import _static_problems
from routerlab.exercises.catalog import Kind, load_catalog
from routerlab.exercises.engine.runner import Candidate, run_checks

WRAPPERS: dict[str, str] = {
    "flow-4": '''
from routerlab.core.base.devices import check_topology


def refused_device(devices):
    try:
        check_topology(devices)
    except Exception as error:
        return str(error).split()[0]
    return None
''',
    "registry-1": '''
from routerlab.core.router.handles import HandleContainer


def get_handle(handles, tensor_id, status):
    return HandleContainer.over(handles).get(tensor_id, status)
''',
    "registry-3": '''
from routerlab.core.router.tensor import status_for as model


def status_for(count):
    return model(count)
''',
    "lifecycle-1": '''
from routerlab.core.router.tensor import status_for as model
from routerlab.core.router.ir import TensorStatus


def status_for(count):
    return model(count)


def drop(count):
    return count - 1, status_for(count) is TensorStatus.READ_WRITE


def into_ir(count):
    status = status_for(count)
    return status, count - (status is TensorStatus.READ_ONLY), False
''',
    "transfer-1": '''
from types import SimpleNamespace

from routerlab.core.router.interpreter import TensorInterpreter


def get_tensor(handles, ir):
    return TensorInterpreter.get_tensor(SimpleNamespace(handles=handles), ir)


def register_tensor_to_device(backend, handles, tensor_id, tensor):
    fake = SimpleNamespace(handles=handles, backend=backend, device=backend.device)
    TensorInterpreter.register_tensor_to_device(fake, tensor_id, tensor)
''',
    "transfer-3": '''
from types import SimpleNamespace

from routerlab.core.router.server import Server


def expose(pending, source, transfer_id, tensor):
    Server.expose_local(SimpleNamespace(_local={"p": pending}), source, transfer_id, tensor)


def ready(pending, transfer_id):
    return transfer_id in pending


def take(pending, transfer_id):
    return Server.take_local(SimpleNamespace(_local={"p": pending}), "p", transfer_id)


def purge(pending, source):
    pending.clear()
''',
    "transfer-5": '''
from routerlab.core.base.devices import automatic_path


def path_for(source, target):
    return automatic_path(source, target).value
''',
    "quant-1": '''
from routerlab.core.quant.calibration import compute_q_params


def compute_scale(values, value):
    return float(compute_q_params(value, min(values), max(values)).scales)
''',
    "quant-2": '''
import numpy as np

from routerlab.core.quant.scale_dtype import ScaleDtype, round_up as model


def round_up(scale, dtype):
    return float(model(np.array([scale], dtype=np.float32), ScaleDtype(dtype))[0])
''',
    "quant-3": '''
import numpy as np

from routerlab.core.quant.packing import pack_u32 as model


def pack_u32(values, bits):
    return [int(w) for w in model(np.array(values, dtype=np.int8), bits)]
''',
    "quant-7": '''
import numpy as np

from routerlab.core.quant.packing import unpack_u32 as model


def unpack_u32(words, bits, length):
    return [int(v) for v in model(np.array(words, dtype=np.uint32), bits, length)]
''',
    "quant-8": '''
from routerlab.core.quant.layout import params_shape


def block_grid(shape, block):
    return list(params_shape(tuple(shape), block))
''',
    "gap-1": '''
from routerlab.exercises.checks.gap import model_burn_arm


def burn_arm(dtype):
    return model_burn_arm(dtype)
''',
    "fix-1": '''
from routerlab.core.fix.guard import can_move_to_device as model_can
from routerlab.core.fix.guard import is_quantized_handle as model_is


def is_quantized_handle(kind):
    return model_is(kind)


def can_move_to_device(kind, policy="native"):
    return model_can(kind, policy)
''',
    "fix-2": '''
from types import SimpleNamespace

from routerlab.core.fix.arms import QuantizedTransfers
from routerlab.core.fix.qtensor import q_to_device as model


def get_tensor(handles, ir):
    return QuantizedTransfers.get_tensor(None, SimpleNamespace(handles=handles), ir)


def q_to_device(backend, q):
    return model(backend, q)
''',
    "wire-1": '''
from routerlab.core.wire import flush_reason


def leaves(kind, queued, queued_bytes, nbytes):
    return flush_reason(kind, queued, queued_bytes, nbytes)
''',
    "build-1": '''
from routerlab.core.router.handles import HandleContainer as Model


class HandleContainer:
    def __init__(self, model=None):
        self.model = Model() if model is None else model

    def register_handle(self, id, handle):
        self.model.register(id, handle)

    def has_handle(self, id):
        return self.model.has_handle(id)

    def get_handle_ref(self, id):
        return self.model.get_handle_ref(id)

    def get_handle(self, id, status):
        return self.model.get(id, status)

    def get_tensor_handle(self, tensor):
        return self.model.get_tensor_handle(tensor)

    def remove_handle(self, id):
        return self.model.remove_handle(id)

    def free(self, tensor):
        self.model.free(tensor)

    def num_handles(self):
        return self.model.num_handles()

    def handle_ids(self):
        return list(self.model.handle_ids())

    def fork(self):
        return HandleContainer(self.model.fork())
''',
    "build-2": '''
from routerlab.core.router.tensor import RouterTensor as Model


class RouterTensor:
    def __init__(self, id, shape, dtype, client, model=None):
        self.id, self.shape, self.dtype, self.client = id, tuple(shape), dtype, client
        self.model = Model(id, shape, dtype, client) if model is None else model

    @property
    def count(self):
        return self.model.count

    def can_mut(self):
        return self.model.can_mut()

    def clone(self):
        return RouterTensor(self.id, self.shape, self.dtype, self.client, self.model.clone())

    def into_ir(self):
        return self.model.into_ir()

    def to_ir_out(self):
        return self.model.into_ir()

    def drop(self):
        self.model.drop()
''',
    "build-3": '''
from routerlab.core.router.interpreter import TensorInterpreter as Model


class TensorInterpreter:
    def __init__(self, backend):
        self.model = Model(backend)
        self.backend, self.device, self.handles = backend, backend.device, self.model.handles

    def get_tensor(self, tensor):
        return self.model.get_tensor(tensor)

    def register_tensor_to_device(self, id, tensor):
        self.model.register_tensor_to_device(id, tensor)


class LocalComm:
    def __init__(self):
        self.exposed = {}

    def expose_tensor_local(self, source, tensor, transfer_id):
        self.exposed[transfer_id] = source.get_tensor(tensor)

    def register_tensor_local(self, target, transfer_id, id):
        target.register_tensor_to_device(id, self.exposed.pop(transfer_id))

    def pending(self):
        return len(self.exposed)
''',
    "build-4": '''
from routerlab.core.fix.qtensor import q_from_data as model_from, q_into_data as model_into
from routerlab.core.router.interpreter import TensorInterpreter as Model


class Handles:
    def __init__(self, model):
        self.model = model

    def register_handle(self, id, handle):
        self.model.register(id, handle)

    def __getattr__(self, name):
        return getattr(self.model, name)


class TensorInterpreter:
    def __init__(self, backend):
        self.model = Model(backend)
        self.backend, self.device = backend, backend.device
        self.handles = Handles(self.model.handles)

    def get_tensor(self, tensor):
        return self.model.get_tensor(tensor)

    def register_tensor_to_device(self, id, tensor):
        self.model.register_tensor_to_device(id, tensor)

    def read_tensor(self, tensor):
        return self.model.read_tensor(tensor)

    def register_tensor_data(self, id, data):
        self.model.register_tensor_data(id, data)


def q_into_data(backend, q):
    return model_into(backend, q)


def q_from_data(backend, data):
    return model_from(backend, data)
''',
    "build-5": '''
from routerlab.core.base.policies import Policy
from routerlab.core.fix.arms import carrier_for
from routerlab.core.fix.guard import can_move_to_device as model_can


def can_move_to_device(dtype, policy):
    return model_can(dtype, policy)


def move_quantized(policy, source, target, q):
    carrier = carrier_for(Policy(policy))
    return carrier.put(target, carrier.take(source, q))
''',
    "build-6": '''
from types import SimpleNamespace

from routerlab.core.router.client import RouterClient as Model


class RouterClient:
    def __init__(self, session, new_id):
        self.model = Model(session, SimpleNamespace(journal=None), new_id)
        self.session, self.device = session, session.device

    def create_empty_handle(self):
        return self.model.create_empty_handle()

    def register_op(self, op):
        self.model.register_op(op)

    def register(self, op):
        return self.model.register(op)

    def register_tensor_data(self, data):
        return self.model.register_tensor_data(data)


def float_from_data(client, data):
    return client.register_tensor_data(data)
''',
    "wire-4": '''
from routerlab.exercises.checks.wire_custom import model_fused_add_mul


def fused_add_mul(interpreter, op):
    model_fused_add_mul(interpreter, op)
''',
    "capstone-1": '''
from routerlab.core.fix.qtensor import q_to_device


def register_quantized(backend, handles, tensor_id, q):
    handles.register(tensor_id, q_to_device(backend, q))
''',
}
"""Per implement exercise, a submission that hands the work to the model's own function."""

IMPLEMENT = [e.id for e in load_catalog() if e.kind is Kind.IMPLEMENT]


PROVEN_ELSEWHERE = {
    "build-7": "tests/exercises/test_build_track.py: a to_device that hands the move to the "
               "model (or any model class in place of the learner's) fails, the call trace "
               "naming the model function that ran",
    "build-8": "tests/exercises/test_build_track.py: the model's Session, its "
               "interpreter's register_op or its client's read_tensor in place of the "
               "learner's fails, the call trace naming the model function that ran",
}
"""Implement exercises whose refusal of the model's own code needs a whole router to show, and
the test that shows it."""


def test_every_implement_exercise_has_a_wrapper_here() -> None:
    """A new implement exercise gets its wrapper here too (it names the function it refuses),
    or names the test that proves the refusal."""
    assert sorted(set(IMPLEMENT) - set(WRAPPERS) - set(PROVEN_ELSEWHERE)) == []
    assert not set(WRAPPERS) & set(PROVEN_ELSEWHERE)


@pytest.mark.parametrize("where", ["jail", "sandbox"])
@pytest.mark.parametrize("exercise_id", sorted(set(IMPLEMENT) & set(WRAPPERS)))
def test_a_wrapper_around_the_model_is_refused(exercise_id: str, where: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    exercise = load_catalog().get(exercise_id)
    if where == "sandbox":
        monkeypatch.setenv("ROUTERLAB_NO_JAIL", "1")
    path = tmp_path / exercise.file_name
    path.write_text(WRAPPERS[exercise_id], encoding="utf-8")
    report = run_checks(exercise, Candidate(path, path.name))
    assert not report.passed
    assert report.problem is not None and report.problem.name == "write it yourself", (
        report.problem, [(o.name, o.message) for o in report.outcomes if not o.ok][:2])


def test_lint_refuses_an_implement_exercise_that_names_no_model_function() -> None:
    exercise = load_catalog().get("registry-3")
    assert not any("delegation" in p for p in _static_problems(exercise))
    bare = replace(exercise, delegation=())
    assert any("names no model function in `delegation`" in p for p in _static_problems(bare))
