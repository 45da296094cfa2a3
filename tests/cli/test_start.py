"""What `routerlab` imports to start: pinned, because start-up time is import time.

`routerlab --help` must import nothing beyond what a bare Typer app imports, plus RouterLab's own
CLI modules (the command modules are light: each imports the core inside its function). A
`quantize --json` run imports numpy and the quantization package, but neither rich nor the
router model. The speed itself is measured in benchmarks/cli_start.py, never here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import routerlab
from routerlab.cli import app as app_module
from routerlab.cli.commands import teacher

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import json, runpy, sys
args = sys.argv[1:]
sys.argv = args
try:
    if args[0] == "bare":
        import typer
        app = typer.Typer()
        app.command()(lambda x=0: None)
        app.command("b")(lambda y=0: None)
        app()
    else:
        from routerlab.cli.app import main
        main()
except SystemExit:
    pass
sys.stdout = sys.__stdout__
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _modules(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                          timeout=120)
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_help_imports_only_typer_and_the_cli_modules() -> None:
    extra = _modules("routerlab", "--help") - _modules("bare", "--help")
    commands = {f"routerlab.cli.commands.{name}"
                for name in [*app_module.COMMAND_MODULES, *teacher.CLASS_MODULES]}
    assert extra == {"routerlab", "routerlab.cli", "routerlab.cli.app", "routerlab.cli.help",
                     "routerlab.cli.options", "routerlab.cli.tensor_input",
                     "routerlab.cli.commands", "routerlab.cli.commands.teacher_options"} | commands


def test_quantize_json_imports_neither_rich_nor_the_router_model() -> None:
    loaded = _modules("routerlab", "quantize", "--values", "[1,2]", "--scheme", "q8s", "--json")
    assert "numpy" in loaded and "routerlab.core.quant.ops" in loaded
    heavy = {m for m in loaded if m.split(".")[0] in {"rich", "numba", "ml_dtypes"}
             or m in {"routerlab.core.runtime", "routerlab.core.router.interpreter",
                      "concurrent.futures"}}
    assert not heavy, sorted(heavy)


def test_version_is_the_constant_pyproject_declares() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert routerlab.__version__ == project["version"]
    assert "import importlib" not in (ROOT / "__init__.py").read_text()
