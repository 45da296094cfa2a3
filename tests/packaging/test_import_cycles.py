"""No import cycle runs anywhere in `routerlab`: not between packages (the contracts say that for
`core` and `exercises`), and not between any two modules of the whole package.

An import inside a function counts (it runs when the function does); one under
`if TYPE_CHECKING:` does not (it never runs). grimp reads both, as `lint-imports` does. The
second test runs the same search on a package with a hidden loop, so it cannot pass vacuously.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIND_CYCLES = textwrap.dedent("""
    import sys
    import grimp

    graph = grimp.build_graph(sys.argv[1], exclude_type_checking_imports=True, cache_dir=None)
    index, low, stack, on_stack, order = {}, {}, [], set(), [0]
    loops = []

    def visit(module):  # Tarjan's strongly connected components
        index[module] = low[module] = order[0]
        order[0] += 1
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    sys.setrecursionlimit(20000)
    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    for loop in loops:
        print(" <-> ".join(loop))
""")


def _loops(package: str, path: str | None = None) -> list[str]:
    env = None if path is None else {"PYTHONPATH": path, "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", FIND_CYCLES, package], capture_output=True,
                          text=True, timeout=300, env=env, cwd=ROOT if path is None else path)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_no_import_cycle_runs_anywhere_in_routerlab() -> None:
    assert _loops("routerlab") == []


def test_the_search_finds_a_loop_hidden_in_a_function(tmp_path: Path) -> None:
    package = tmp_path / "bad"
    (package / "deep").mkdir(parents=True)
    for init in (package / "__init__.py", package / "deep" / "__init__.py"):
        init.write_text("")
    (package / "a.py").write_text("from .deep import b\n")
    (package / "deep" / "b.py").write_text("def later():\n    from .. import a\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                  "    from . import a\n")
    (package / "d.py").write_text("from . import c\n")
    assert _loops("bad", str(tmp_path)) == ["bad.a <-> bad.deep.b"]
