from routerlab.core.router.backend import Backend, HandleKind, Kind  # noqa: F401
from routerlab.core.router.handles import HandleContainer
from routerlab.core.router.ir import TensorId, TensorIr


def get_tensor(handles: HandleContainer, ir: TensorIr) -> HandleKind:
    """Source side: take the typed primitive of a same-peer move (get_tensor).

    Read: crates/burn-router/src/interpreter.rs:88-100, and burn-std's dtype predicates
    (crates/burn-std/src/tensor/dtype.rs:78-95). Burn's version falls through for some plain
    dtypes: yours gives every plain dtype an arm.
    """
    # TODO
    raise NotImplementedError("get_tensor")


def register_tensor_to_device(backend: Backend, handles: HandleContainer, tensor_id: TensorId,
                              tensor: HandleKind) -> None:
    """Target side: move the primitive onto `backend`'s device and register it under `tensor_id`
    (crates/burn-router/src/interpreter.rs:108-127).

    The visible checks: f32, i32, bool and u8 tensors moved cpu:0 -> cpu:1 in a real runtime
    (values, both registries), a shared tensor moved, and the kind get_tensor gives each dtype.
    """
    # TODO
    raise NotImplementedError("register_tensor_to_device")
