"""The import contracts of `.importlinter` hold: the layers of docs/ARCHITECTURE.md in order, the
two faces independent, no cycle anywhere in `routerlab.core`, the exercises house's rooms in
order and without a cycle, the interpreter imported only by the modules that own or extend it,
and no face library in the model.

`lint-imports` reads the imports of the installed `routerlab` (this checkout, installed
editable) with grimp; it prints each contract KEPT or BROKEN and exits 1 on a broken one. The
other tests give the same contracts a package that breaks each, so a contract that could never
fail would show here.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
        "sys.exit(lint_imports_command())", "--no-cache"]


def _lint(config: Path, cwd: Path, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = None if path is None else {"PYTHONPATH": path, "PATH": "/usr/bin:/bin"}
    return subprocess.run([*LINT, str(config)], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)


def test_every_contract_is_kept() -> None:
    result = _lint(ROOT / ".importlinter", ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    names = [line for line in (ROOT / ".importlinter").read_text().splitlines()
             if line.startswith("[importlinter:contract:")]
    assert len(names) == 7 and "Contracts: 7 kept, 0 broken." in result.stdout, result.stdout


def test_the_same_contract_types_break_on_a_package_that_breaks_them(tmp_path: Path) -> None:
    package = tmp_path / "bad"
    for folder in ("", "core", "cli", "notebook"):
        (package / folder).mkdir(exist_ok=True)
        (package / folder / "__init__.py").write_text("")
    (package / "core" / "a.py").write_text("from . import b\n")
    (package / "core" / "b.py").write_text("def f():\n    from . import a  # hidden inside\n")
    (package / "core" / "interpreter.py").write_text("")
    (package / "core" / "channel.py").write_text("from . import interpreter\n")
    (package / "cli" / "app.py").write_text("from ..notebook import helpers\n")
    (package / "notebook" / "helpers.py").write_text("from ..core import a\n")
    config = tmp_path / "contracts.ini"
    config.write_text(textwrap.dedent("""
        [importlinter]
        root_package = bad

        [importlinter:contract:layers]
        name = layers
        type = layers
        containers =
            bad
        layers =
            cli | notebook
            core

        [importlinter:contract:acyclic]
        name = acyclic
        type = acyclic_siblings
        ancestors =
            bad.core

        [importlinter:contract:interpreter]
        name = interpreter
        type = protected
        protected_modules =
            bad.core.interpreter
        allowed_importers =
            bad.core.session
        as_packages = False
        """))
    result = _lint(config, tmp_path, str(tmp_path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Contracts: 0 kept, 3 broken." in result.stdout, result.stdout


def _section(config: str, name: str) -> str:
    """One contract of `.importlinter`, as written there."""
    start = config.index(f"[importlinter:contract:{name}]")
    end = config.find("\n[", start + 1)
    return config[start:] if end < 0 else config[start:end]


def test_the_exercises_contracts_as_written_break_on_a_house_that_breaks_them(
        tmp_path: Path) -> None:
    """The two contracts over `routerlab.exercises`, copied verbatim onto a package `bad` with
    the same rooms: the engine imports the learner (a room above it) and two authoring modules
    import each other, one of them inside a function. Both contracts must report it."""
    house = tmp_path / "bad" / "exercises"
    rooms = ("teacher", "learner", "authoring", "engine", "checks")
    for folder in ("..", ".", *rooms):
        (house / folder).mkdir(parents=True, exist_ok=True)
        (house / folder / "__init__.py").write_text("")
    for shared in ("catalog", "variants", "answers", "report", "errors", "files"):
        (house / f"{shared}.py").write_text("")
    (house / "learner" / "course.py").write_text("from ..authoring import bundle\n")
    (house / "engine" / "runner.py").write_text("from ..learner import course\n")
    (house / "authoring" / "bundle.py").write_text("from . import sealing\n")
    (house / "authoring" / "sealing.py").write_text("def f():\n    from . import bundle\n")
    real = (ROOT / ".importlinter").read_text()
    contracts = [_section(real, name) for name in ("exercises-rooms", "exercises-acyclic")]
    config = tmp_path / "contracts.ini"
    config.write_text("[importlinter]\nroot_package = bad\n\n"
                      + "\n".join(contracts).replace("routerlab.", "bad."))
    result = _lint(config, tmp_path, str(tmp_path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Contracts: 0 kept, 2 broken." in result.stdout, result.stdout
    assert "bad.exercises.engine.runner -> bad.exercises.learner.course" in result.stdout
