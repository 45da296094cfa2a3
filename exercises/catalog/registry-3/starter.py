from routerlab.core.router.ir import READ_ONLY, READ_WRITE, TensorStatus  # noqa: F401 (for the TODO)


def status_for(count: int) -> TensorStatus:
    """The status of one use of a tensor whose clones share `count` (RouterTensor::status)."""
    # TODO: the last reference may consume the handle; a shared one must leave it.
    raise NotImplementedError("status_for")
