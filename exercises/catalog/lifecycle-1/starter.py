from routerlab.core.router.ir import TensorStatus


def status_for(count: int) -> TensorStatus:
    """The status of a use of a tensor whose clones share `count` (RouterTensor::status,
    crates/burn-router/src/tensor.rs:98)."""
    # TODO
    raise NotImplementedError("status_for")


def drop(count: int) -> tuple[int, bool]:
    """End one reference: (count afterwards, whether a Drop op is sent) (`impl Drop`,
    crates/burn-router/src/tensor.rs:137)."""
    # TODO
    raise NotImplementedError("drop")


def into_ir(count: int) -> tuple[TensorStatus, int, bool]:
    """Consume one reference as an op input: (status of this use, count afterwards, Drop sent?)
    (`into_ir`, crates/burn-router/src/tensor.rs:67; read what it does to the count before the
    reference goes away).

    The visible checks: status_for of 1 and 2, drop of the last and of a shared reference,
    into_ir of a shared and of the last reference, and a clone, a drop and an add in a real
    runtime, counting the Drop ops sent.
    """
    # TODO
    raise NotImplementedError("into_ir")
