from routerlab.core.router.backend import Backend, HandleKind, Kind  # noqa: F401 (for the TODO)
from routerlab.core.router.handles import HandleContainer
from routerlab.core.router.ir import TensorId, TensorIr


def get_tensor(handles: HandleContainer, ir: TensorIr) -> HandleKind:
    """Source side: take the typed primitive of a same-peer move (get_tensor)."""
    # Burn 2c06be3 does:
    #   if dtype.is_float(): Float(..)  elif dtype.is_int(): Int(..)  elif dtype.is_bool(): Bool(..)
    #   else: todo!("Local transfer of {dtype:?} tensors is not supported yet")
    # TODO: give every plain dtype an arm.
    raise NotImplementedError("get_tensor")


def register_tensor_to_device(backend: Backend, handles: HandleContainer, tensor_id: TensorId,
                              tensor: HandleKind) -> None:
    """Target side: move the primitive onto `backend`'s device and register it under `tensor_id`."""
    # TODO
    raise NotImplementedError("register_tensor_to_device")
