"""Maps the repository's top-level folders onto the single `routerlab` import package.

The user asked for `core/`, `cli/` and `exercises/` at the top level; installed, they must be
`routerlab.core`, `routerlab.cli` and `routerlab.exercises`, never bare `core` or `cli`.
Sub-packages are discovered here so that adding one needs no edit to pyproject.toml.
"""

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).parent
MAPPED = {"routerlab": "src/routerlab", "routerlab.core": "core", "routerlab.cli": "cli",
          "routerlab.exercises": "exercises"}


def _packages() -> tuple[list[str], dict[str, str]]:
    packages, package_dir = [], {}
    for name, folder in MAPPED.items():
        package_dir[name] = folder
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            rel = init.parent.relative_to(ROOT / folder)
            parts = [] if rel == Path(".") else list(rel.parts)
            if "__pycache__" in parts:
                continue
            packages.append(".".join([name, *parts]))
    return packages, package_dir


PACKAGES, PACKAGE_DIR = _packages()

setup(
    packages=PACKAGES,
    package_dir=PACKAGE_DIR,
    package_data={"routerlab.exercises": ["catalog/**/*"], "routerlab": ["py.typed"]},
    include_package_data=False,
)
