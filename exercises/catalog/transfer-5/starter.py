from routerlab.core.base.devices import Device


def path_for(source: Device, target: Device) -> str:
    """The path of a move from `source` to `target`: "same", "local" or "bytes".

    Read: crates/burn-remote/src/client/runner.rs:406-417 (change_backend). A `Device` has
    `peer`, `kind`, `index` and `profile`, and compares equal field by field.
    The visible checks: one device spelled two ways, devices of one peer and of two, another
    backend on another peer, and moves along your paths in a real runtime.
    """
    # TODO
    raise NotImplementedError("path_for")
