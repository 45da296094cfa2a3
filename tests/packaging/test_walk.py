"""docs/ARCHITECTURE.md's "Follow one move" stays true: a same-peer move of a plain tensor on the
readable path calls into the files that section names and no other, and each of its numbered
stops is one the move really passes through."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

import routerlab
from routerlab.core import Runtime

ROOT = Path(routerlab.__file__).resolve().parent
DOC = ROOT / "docs" / "ARCHITECTURE.md"


def _section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## Follow one move")
    return text[start:text.index("\n## ", start + 1)]


def _walk(fast: bool) -> set[str]:
    """The package files whose functions one warm move calls."""
    rt = Runtime(["cpu:0", "cpu:1"], fast=fast)
    for _ in range(2):  # warm: devices created, caches filled
        rt.to_device(rt.tensor(np.ones(4, np.float32), "cpu:0"), "cpu:1")
    x = rt.tensor(np.ones(4, np.float32), "cpu:0")
    files: set[str] = set()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        name = frame.f_code.co_filename
        if event == "call" and name.startswith(str(ROOT)):
            files.add(Path(name).resolve().relative_to(ROOT).as_posix())

    sys.setprofile(profile)
    try:
        rt.to_device(x, "cpu:1")
    finally:
        sys.setprofile(None)
    return files


def test_the_readable_move_touches_only_the_files_the_walk_names() -> None:
    section = _section()
    named = set(re.findall(r"`(core/[\w/]+\.py)`", section))
    stops = re.findall(r"^\d\. `(core/[\w/]+\.py)`", section, flags=re.MULTILINE)
    touched = _walk(fast=False)
    assert len(stops) <= 8 and set(stops) <= touched, (stops, touched)
    assert touched <= named, f"the move also calls into {sorted(touched - named)}"
    counted = re.search(r"(\d+) Python calls over (\d+) files for that move", section)
    assert counted and int(counted[2]) == len(touched)


def test_the_fast_move_skips_the_scheduler() -> None:
    touched = _walk(fast=True)
    assert "core/fastpath.py" in touched and "core/moves.py" not in touched
