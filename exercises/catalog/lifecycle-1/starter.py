from routerlab.core.router.ir import TensorStatus


def status_for(count: int) -> TensorStatus:
    """The status of a use of a tensor whose clones share `count` (RouterTensor::status)."""
    # TODO: the last reference may consume the handle.
    raise NotImplementedError("status_for")


def drop(count: int) -> tuple[int, bool]:
    """End one reference: (count afterwards, whether a Drop op is sent)."""
    # TODO
    raise NotImplementedError("drop")


def into_ir(count: int) -> tuple[TensorStatus, int, bool]:
    """Consume one reference as an op input: (status of this use, count afterwards, Drop sent?)."""
    # TODO: remember the bump Burn does for a ReadWrite use before the reference is dropped.
    raise NotImplementedError("into_ir")
