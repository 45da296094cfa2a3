from routerlab.core.base.devices import Device  # noqa: F401 (for the TODO)


def refused_device(devices: list[Device]) -> str | None:
    """The first device that cannot join its peer's server (as a string), or None."""
    # TODO: each peer is one server, and a server hosts one backend.
    raise NotImplementedError("refused_device")
