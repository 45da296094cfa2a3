from routerlab.core.base.devices import Device  # noqa: F401 (for the TODO)


def path_for(source: Device, target: Device) -> str:
    """The path of a move from `source` to `target`: "same", "local" or "bytes"."""
    # TODO: the same device; else the same server process; else another one.
    raise NotImplementedError("path_for")
