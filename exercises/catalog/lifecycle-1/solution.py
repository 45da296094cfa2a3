"""lifecycle-1 reference solution: RouterTensor's count rules (tensor.rs:38-150)."""

from routerlab.core.ir import TensorStatus


def status_for(count: int) -> TensorStatus:
    """The status of a use of a tensor whose clones share `count` (RouterTensor::status)."""
    return TensorStatus.READ_WRITE if count <= 1 else TensorStatus.READ_ONLY


def drop(count: int) -> tuple[int, bool]:
    """End one reference: (count afterwards, whether a Drop op is sent)."""
    return count - 1, status_for(count) is TensorStatus.READ_WRITE


def into_ir(count: int) -> tuple[TensorStatus, int, bool]:
    """Consume one reference as an op input: (status of this use, count afterwards, Drop sent?)."""
    status = status_for(count)
    if status is TensorStatus.READ_WRITE:
        count += 1  # so the drop below sees 2: a last use never also sends Drop
    after, sends = drop(count)
    return status, after, sends
