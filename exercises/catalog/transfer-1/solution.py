"""transfer-1 reference solution: the same-peer transfer arms with an arm for every plain dtype."""

from routerlab.core.backend import Backend, HandleKind, Kind
from routerlab.core.handles import HandleContainer
from routerlab.core.ir import TensorId, TensorIr


def get_tensor(handles: HandleContainer, ir: TensorIr) -> HandleKind:
    """Source side: take the typed primitive of a same-peer move (get_tensor)."""
    dtype = ir.dtype
    if dtype.is_float():
        kind = Kind.FLOAT
    elif dtype.is_int():
        kind = Kind.INT
    elif dtype.is_uint():  # the arm Burn 2c06be3 lacks: is_int() is false for unsigned ints
        kind = Kind.UINT
    else:
        kind = Kind.BOOL
    # The IR's status decides: ReadWrite moves the handle out (the tensor moves), ReadOnly
    # leaves it registered (a shared tensor is copied).
    return HandleKind(kind, handles.get_tensor_handle(ir))


def register_tensor_to_device(backend: Backend, handles: HandleContainer, tensor_id: TensorId,
                              tensor: HandleKind) -> None:
    """Target side: move the primitive onto `backend`'s device and register it under `tensor_id`."""
    to_device = {Kind.FLOAT: backend.float_to_device, Kind.INT: backend.int_to_device,
                 Kind.UINT: backend.uint_to_device, Kind.BOOL: backend.bool_to_device}[tensor.kind]
    handles.register(tensor_id, to_device(tensor.primitive))
