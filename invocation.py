"""How to type RouterLab again: the prefix of every command line RouterLab prints for pasting.

A hint that says `routerlab exercises check` is wrong for a learner who started RouterLab with
`./run` (no `routerlab` on PATH: exit 127) or with `python -m routerlab`. The prefix follows the
way this process was started: `./run` says so in ROUTERLAB_RUN_SCRIPT (its path, as the shell
sees it), a console script is `routerlab` when that name finds this very script on PATH and its
full path otherwise, and anything else is this interpreter with `-m routerlab`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

RUN_SCRIPT_ENV = "ROUTERLAB_RUN_SCRIPT"
"""Set by `./run`: the script's absolute path."""


def command_prefix() -> str:
    """`./run`'s path, `routerlab`, the console script's path, or `PYTHON -m routerlab`."""
    runner = os.environ.get(RUN_SCRIPT_ENV)
    if runner:
        return shlex.quote(runner)
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name == "routerlab" and script.is_file():
        on_path = shutil.which("routerlab")
        if on_path and Path(on_path).resolve() == script.resolve():
            return "routerlab"
        return shlex.quote(str(script.resolve()))
    if script is None or script.name != "__main__.py" and shutil.which("routerlab"):
        return "routerlab"  # in-process callers (tests, a notebook) with routerlab installed
    return f"{shlex.quote(sys.executable)} -m routerlab"


def routerlab(line: str) -> str:
    """`line` (`exercises check`) as the user should type it here."""
    return f"{command_prefix()} {line}"
