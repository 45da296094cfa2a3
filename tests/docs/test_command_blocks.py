"""Every command block of README.md and docs/*.md runs as written (issue 29: 6 of 47 failed).

A block is a fenced `sh`, `bash` or `console` block (in a `console` block, the lines after `$ `
are the commands; the rest is output). Each document's blocks run in order in one empty folder of
their own, as a reader would type them: a `cd` carries over to the next block, `routerlab` is this
checkout's (its `.venv/bin` first on PATH), `./run` is the checkout's script, and HOME is a
temporary folder. The documents run in parallel.

A block that cannot run here says so in the markdown, right before it:
`<!-- not-run: REASON -->` (a GPU, a deployed hub, a server that runs until Ctrl-C, files only the
reader has); it is reported as skipped with that reason. `<!-- exits: N ... -->` says that the
block ends with exit status N on purpose (a check that fails until the exercise is written).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OWN_TEST = {"docs/faults.md": "a script its own test runs (issue 30)",
            "docs/burn.md": "Burn's source, quoted: no commands to run"}
"""Documents whose blocks another test covers, or that hold none."""
COMMANDS = ("sh", "bash", "console", "shell")
BLOCK = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)[ \t]*\n(?P<body>.*?)^(?P=indent)```",
                   re.M | re.S)
MARK = re.compile(r"<!--\s*(?P<kind>not-run|exits):\s*(?P<what>.*?)\s*-->\s*$")
TIMEOUT_S = 300


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    lang: str
    script: str
    skip: str | None
    exits: int

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def _script(lang: str, body: str) -> str:
    if lang != "console":
        return body
    return "\n".join(line.split("$ ", 1)[1] for line in body.splitlines()
                     if re.match(r"^[\w.@-]*\$ ", line))


def _blocks(doc: Path) -> list[Block]:
    text = doc.read_text(encoding="utf-8")
    name = doc.relative_to(ROOT).as_posix()
    found = []
    for match in BLOCK.finditer(text):
        lang = match["lang"]
        body = textwrap.dedent(match["body"])
        before = text[:match.start()].rstrip("\n ").rsplit("\n", 1)[-1].strip()
        mark = MARK.match(before)
        line = text.count("\n", 0, match.start()) + 1
        if lang not in COMMANDS:
            found.append(Block(name, line, lang, body, None, 0))
            continue
        skip = mark["what"] if mark and mark["kind"] == "not-run" else None
        exits = int(mark["what"].split()[0]) if mark and mark["kind"] == "exits" else 0
        found.append(Block(name, line, lang, _script(lang, body), skip, exits))
    return found


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ALL = [b for doc in DOCS if doc.relative_to(ROOT).as_posix() not in OWN_TEST
       for b in _blocks(doc)]
RUNNABLE = [b for b in ALL if b.lang in COMMANDS]


@dataclass(frozen=True)
class Ran:
    code: int
    output: str


def _run_document(blocks: list[Block], folder: Path) -> dict[str, Ran]:
    """Run one document's blocks in order in `folder`; a `cd` carries over."""
    folder.mkdir(parents=True)
    home = folder.parent / f"{folder.name}-home"
    home.mkdir()
    (folder / "run").symlink_to(ROOT / "run")
    bin_dir = Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ROUTERLAB_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(HOME=str(home), NO_COLOR="1", COLUMNS="100",
               PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}")
    cwd_file = folder.parent / f"{folder.name}-cwd"
    cwd_file.write_text(str(folder))
    results = {}
    for block in blocks:
        if block.skip is not None:
            continue
        script = (f'cd "$(cat {cwd_file})" || exit 99\ntrap \'pwd > {cwd_file}\' EXIT\n'
                  f"set -e\n{block.script}\n")
        try:
            done = subprocess.run(["bash", "-c", script], env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=TIMEOUT_S)
            results[block.where] = Ran(done.returncode, done.stdout + done.stderr)
        except subprocess.TimeoutExpired as late:
            results[block.where] = Ran(124, f"timed out after {TIMEOUT_S} s: {late}")
    return results


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    if shutil.which("bash") is None:
        pytest.skip("needs bash")
    base = tmp_path_factory.mktemp("docs")
    if any("./run" in block.script for block in RUNNABLE if block.skip is None):
        # `./run` reinstalls into .venv when pyproject.toml or setup.py changed: once, here,
        # not in two documents at the same time
        ready = subprocess.run([sys.executable, str(ROOT / "run"), "--version"],
                               capture_output=True, text=True, timeout=TIMEOUT_S)
        assert ready.returncode == 0, ready.stdout + ready.stderr
    by_doc: dict[str, list[Block]] = {}
    for block in RUNNABLE:
        by_doc.setdefault(block.doc, []).append(block)
    with ThreadPoolExecutor(max_workers=len(by_doc)) as pool:
        done = pool.map(lambda item: _run_document(item[1], base / Path(item[0]).stem),
                        by_doc.items())
    return {where: result for results in done for where, result in results.items()}


@pytest.mark.slow
@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.where)
def test_the_block_runs_as_written(block: Block, ran: dict[str, Ran]) -> None:
    if block.skip is not None:
        pytest.skip(f"{block.where} not-run: {block.skip}")
    result = ran[block.where]
    tail = "\n".join(result.output.splitlines()[-25:])
    assert result.code == block.exits, (
        f"{block.where} exited {result.code}:\n{block.script}\n{tail}")
    assert "Traceback (most recent call last)" not in result.output, tail


def test_every_command_block_says_its_language() -> None:
    """An untyped block that holds commands would escape the test above: tag it `sh`."""
    untyped = [b.where for b in ALL if b.lang not in COMMANDS and
               re.search(r"^(\$ )?(routerlab|\./run|python) ", b.script, re.M)
               and b.lang not in ("python", "toml", "text")]
    assert not untyped, f"command blocks without a language: {untyped}"


def test_every_skip_has_a_reason_and_every_runnable_document_runs_something() -> None:
    skipped = [b for b in RUNNABLE if b.skip is not None]
    assert all(b.skip for b in skipped)  # a reason, not an empty marker
    runs = {b.doc for b in RUNNABLE if b.skip is None}
    assert {"README.md", "docs/exercises.md", "docs/scenarios.md", "docs/transfers.md"} <= runs
