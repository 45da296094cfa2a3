"""The checkout's root is the `routerlab` import package, so an import's name is its path.

The user asked for `core/`, `cli/` and the other layers at the top level. Rather than map each
folder onto a package name (which hid the structure from every tool that reads imports by path),
the root holds the package's `__init__.py` and each layer is a sub-package beside it:
`routerlab.core` is `core/`, `routerlab.cli` is `cli/`. Inside the package every import is
relative, so `from ..core import Runtime` resolves on disk (docs/ARCHITECTURE.md, "Packaging").
Sub-packages are discovered here so that adding one needs no edit to pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
LAYERS = ("core", "present", "teaching", "notebook", "exercises", "cli")
"""The top-level folders that are part of the package's code; tests, benchmarks and the rest of
the root are not installed."""
SHIPPED = ["notebooks/*.ipynb", "scenarios/*.toml", "scenarios/*/*.toml", "docs/*.md"]
"""Data that ships with the code, so that an installed wheel is a whole RouterLab: the guided
notebooks (`routerlab lab` copies them into the workspace), the scenarios (`routerlab simulate
shared-add`) and the docs the notebooks link to. Read through `routerlab.shipped`."""


def _packages() -> list[str]:
    packages = ["routerlab"]
    for folder in LAYERS:
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            parts = init.parent.relative_to(ROOT).parts
            if "__pycache__" not in parts:
                packages.append(".".join(["routerlab", *parts]))
    return packages


class BuildPy(build_py):
    """Ships the root package's own modules only: setup.py sits beside them but is not one."""

    def find_package_modules(self, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        modules = super().find_package_modules(package, package_dir)
        return [m for m in modules if (m[0], m[1]) != ("routerlab", "setup")]


if __name__ == "__main__":  # the build backend runs it as a script; a walk of the package
    # (pkgutil, an editable install's `routerlab.setup`) only imports it
    setup(
        packages=_packages(),
        package_dir={"routerlab": "."},
        package_data={"routerlab.exercises": ["catalog/**/*"],
                      "routerlab": ["py.typed", *SHIPPED]},
        include_package_data=False,
        cmdclass={"build_py": BuildPy},
    )
