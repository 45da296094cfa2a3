"""docs/faults.md's commands run as written: every `$ ` line of its console blocks, taken from the
page itself (so the test breaks when the page drifts), run from the checkout's folder in one
shell each, with `routerlab` the one this test runs under. The lesson's script starts its own
lesson peers on loopback (`scenarios/peers/with-peers.sh`) and stops them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "faults.md"


def page_commands() -> list[str]:
    """The `$ ` lines of the page's ```console blocks, in order."""
    blocks = re.findall(r"^```console\n(.*?)^```", PAGE.read_text("utf-8"), re.M | re.S)
    return [line[2:] for block in blocks for line in block.splitlines() if line.startswith("$ ")]


def test_the_page_has_its_lesson_and_no_placeholder() -> None:
    commands = page_commands()
    assert len(commands) >= 3
    assert not [c for c in commands if "…" in c or "..." in c]  # nothing to fill in by hand


@pytest.mark.parametrize("command", page_commands())
def test_each_command_of_the_page_runs_as_written(command: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ROUTERLAB_TOKEN"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "120"
    done = subprocess.run(["sh", "-c", command], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert "Traceback" not in out
    assert "the lesson peers did not start" not in out
