from routerlab.core.base.devices import Device


def refused_device(devices: list[Device]) -> str | None:
    """The first device that cannot join its peer's server (as a string), or None.

    Read: crates/burn-remote/src/server/builder.rs:77-89 (RemoteServerBuilder<B>: one backend
    type per server). A `Device` has `peer`, `kind`, `index` and `profile`.
    The visible checks: devices of one peer that differ in index only; several peers, each with
    a backend of its own; a default profile written out.
    """
    # TODO
    raise NotImplementedError("refused_device")
