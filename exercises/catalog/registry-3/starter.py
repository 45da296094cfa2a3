from routerlab.core.router.ir import READ_ONLY, READ_WRITE, TensorStatus  # noqa: F401


def status_for(count: int) -> TensorStatus:
    """The status of one use of a tensor whose clones share `count` (RouterTensor::status).

    Read: crates/burn-router/src/tensor.rs:98 (`status`) and how `count` changes on a clone.
    The visible checks: counts 1 to 3, and `x.clone() + x` in a real runtime.
    """
    # TODO
    raise NotImplementedError("status_for")
