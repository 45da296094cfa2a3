"""environment.yml cannot be solved here (no conda, no conda channels: ecosystem notes), so it is
checked against pyproject.toml instead: same packages, same lower bounds, same Python."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
# conda-forge names that differ from PyPI's.
CONDA_TO_PYPI = {"matplotlib-base": "matplotlib", "python-build": "build", "ml_dtypes": "ml-dtypes",
                 "cupy": "cupy-cuda12x", "msgpack-python": "msgpack"}


def _split(requirement: str) -> tuple[str, str]:
    name, _, bound = re.match(r"([A-Za-z0-9_.\-]+)\s*(>=\s*([\w.]+))?", requirement).groups()[0:3]
    return name.lower(), bound or ""


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _conda_packages() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert env["channels"] == ["conda-forge"]
    assert env["name"] == "routerlab"
    packages = {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            assert dep == {"pip": ["-e ."]}, "only the project itself comes from pip"
            continue
        name, bound = _split(dep)
        packages[CONDA_TO_PYPI.get(name, name)] = bound
    return packages


def test_python_pin_matches_requires_python() -> None:
    conda = _conda_packages()
    assert f">={conda['python']}" == _pyproject()["project"]["requires-python"]


def _commented_packages() -> dict[str, str]:
    """The packages environment.yml names only in a comment (`# - cupy>=13`): extras that need
    hardware, documented but not installed by default."""
    found = {}
    for line in (ROOT / "environment.yml").read_text().splitlines():
        listed = re.match(r"\s*#\s*-\s*([A-Za-z].*)$", line)
        if listed:
            name, bound = _split(listed.group(1))
            found[CONDA_TO_PYPI.get(name, name)] = bound
    return found


HARDWARE_EXTRAS = {"gpu"}
"""Extras listed in environment.yml only as a comment."""


@pytest.mark.parametrize("extra", [None, *_pyproject()["project"]["optional-dependencies"]])
def test_every_pyproject_dependency_is_in_environment_yml_with_the_same_bound(
        extra: str | None) -> None:
    project = _pyproject()["project"]
    wanted = project["dependencies"] if extra is None else project["optional-dependencies"][extra]
    conda = _commented_packages() if extra in HARDWARE_EXTRAS else _conda_packages()
    where = "a comment of environment.yml" if extra in HARDWARE_EXTRAS else "environment.yml"
    for requirement in wanted:
        name, bound = _split(requirement)
        assert name in conda, f"{name} ({extra or 'runtime'}) is in pyproject.toml, not in {where}"
        assert conda[name] == bound, (
            f"{name}: pyproject >= {bound}, {where} >= {conda[name]}")


def test_environment_yml_lists_nothing_pyproject_lacks() -> None:
    project = _pyproject()["project"]
    every = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        every += extra
    known = {_split(r)[0] for r in every} | {"python", "pip"}
    extra_names = set(_conda_packages()) - known
    assert not extra_names, f"environment.yml lists packages pyproject.toml lacks: {extra_names}"


def test_gpu_extra_is_documented_but_not_installed_by_default() -> None:
    text = (ROOT / "environment.yml").read_text()
    assert "# - cupy" in text
    assert _pyproject()["project"]["optional-dependencies"]["gpu"] == ["cupy-cuda12x>=13"]
