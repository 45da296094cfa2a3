"""The facts `routerlab doctor` reports, gathered without importing anything optional eagerly."""

from __future__ import annotations

import importlib.util
import platform
from dataclasses import dataclass
from typing import Any

import numpy as np

from routerlab.core.gpu import gpu_status
from routerlab.core.view import TableView, Viewable


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class DoctorReport(Viewable):
    checks: list[Check]
    devices: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks],
            "devices": self.devices,
        }

    def view(self) -> TableView:
        rows = [[c.name, "ok" if c.ok else "missing", c.detail] for c in self.checks]
        rows.append(["devices", "ok", ", ".join(self.devices)])
        return TableView(
            "RouterLab doctor", ["check", "status", "detail"], rows,
            styles={i: "muted" for i, c in enumerate(self.checks) if not c.ok},
        )


def _package(name: str) -> Check:
    spec = importlib.util.find_spec(name)
    if spec is None:
        return Check(name, False, "not installed")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return Check(name, True, version(name))
    except PackageNotFoundError:
        return Check(name, True, "present")


def diagnose() -> DoctorReport:
    """Python, numpy, ml_dtypes, CuPy/GPU (with the reason), Jupyter, and the devices usable now."""
    gpu = gpu_status()
    gpu_detail = gpu.reason if not gpu.usable else f"{gpu.device_name} × {gpu.device_count}"
    checks = [
        Check("python", True, platform.python_version()),
        Check("numpy", True, np.__version__),
        _package("ml_dtypes"),
        Check("cupy / GPU", gpu.usable, gpu_detail),
        _package("jupyterlab"),
    ]
    devices = ["cpu:0", "cpu:1", "… (any cpu:N, simulated on numpy)"]
    devices += [f"cuda:{i}" for i in range(gpu.device_count)] if gpu.usable else []
    return DoctorReport(checks, devices)
