"""The facts `routerlab doctor` reports, gathered without importing anything optional eagerly."""

from __future__ import annotations

import importlib.util
import platform
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core import Cell, Profile, QFloat, TableView, Viewable, gpu_status, parse_device
from ..core.fix import SOURCES, Advertisement, advertise
from ..core.quant import parse_scheme


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class DoctorReport(Viewable):
    checks: list[Check]
    devices: list[str]
    advertised: list[Advertisement]
    """What a router device of each profile claims for a Q8S tensor, beside the truth."""
    peers: list[Check] = field(default_factory=list)
    """The served peers asked about (`--peer`, ROUTERLAB_PEERS, a scenario's [peers])."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks],
            "devices": self.devices,
            "peers": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.peers],
            "advertised": [{"device": str(a.device), "dtype": str(a.dtype),
                            "dtype_usage": sorted(a.usage), "supports_dtype": a.supports,
                            "router_can": a.router_can} for a in self.advertised],
        }

    def advertised_view(self) -> TableView:
        """The false advertisement: a router device forwards its server's `dtype_usage`."""
        rows: list[list[Cell]] = [[str(a.device), str(a.dtype), ", ".join(sorted(a.usage)) or None,
                                   a.supports, a.router_can, SOURCES[a.device.profile]]
                                  for a in self.advertised]
        return TableView("QFloat through the router: advertised vs real (Burn 2c06be3)",
                         ["device", "dtype", "dtype_usage", "supports_dtype", "router can",
                          "answer from"], rows,
                         caption="the router forwards its server's answer "
                                 "(crates/burn-router/src/backend.rs:55-58) while every router "
                                 "quantized op is unimplemented!(); RouterLab's fix moves them",
                         styles={i: "error" for i, a in enumerate(self.advertised) if a.false})

    def view(self) -> TableView:
        rows = [[c.name, "ok" if c.ok else "missing", c.detail] for c in self.checks]
        rows.append(["devices", "ok", ", ".join(self.devices)])
        styles = {i: "muted" for i, c in enumerate(self.checks) if not c.ok}
        for peer in self.peers:
            if not peer.ok:
                styles[len(rows)] = "error"
            rows.append([peer.name, "reachable" if peer.ok else "unreachable", peer.detail])
        return TableView("RouterLab doctor", ["check", "status", "detail"], rows, styles=styles)


def _package(name: str, extra: str | None = None) -> Check:
    """Whether `name` is importable; when it is not, the detail names the RouterLab extra that
    brings it (`pip install 'routerlab[notebooks]'`), not the bare package."""
    spec = importlib.util.find_spec(name)
    if spec is None:
        return Check(name, False, "not installed" if extra is None
                     else f"not installed: pip install 'routerlab[{extra}]'")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return Check(name, True, version(name))
    except PackageNotFoundError:
        return Check(name, True, "present")


def diagnose(peers: Mapping[str, str] | None = None) -> DoctorReport:
    """Python, numpy, ml_dtypes, CuPy/GPU (with the reason), Jupyter, the devices usable now,
    and whether each served peer named in `peers` answers (a probe of at most 2 s each)."""
    gpu = gpu_status()
    gpu_detail = gpu.reason if not gpu.usable else f"{gpu.device_name} × {gpu.device_count}"
    checks = [
        Check("python", True, platform.python_version()),
        Check("numpy", True, np.__version__),
        _package("ml_dtypes"),
        Check("cupy / GPU", gpu.usable, gpu_detail),
        _package("jupyterlab", extra="notebooks"),
    ]
    devices = ["cpu:0", "cpu:1", "… (any cpu:N, simulated on numpy)"]
    devices += [f"cuda:{i}" for i in range(gpu.device_count)] if gpu.usable else []
    advertised = [advertise(parse_device(d), QFloat(parse_scheme("q8s").resolve(profile)))
                  for d, profile in (("cpu:0", Profile.FLEX), ("cpu:0@ndarray", Profile.NDARRAY),
                                     ("cuda:0", Profile.CUBECL))]
    return DoctorReport(checks, devices, advertised, _peers(peers or {}))


def _peers(peers: Mapping[str, str]) -> list[Check]:
    from ..core.serving import probe_peer  # websockets only when peers are named

    probes = [probe_peer(name, address) for name, address in peers.items()]
    return [Check(f"peer {p.name}", p.ok, f"{p.address}: {p.detail}") for p in probes]
