"""The copy of RouterLab a grading jail runs from: the model with every graded function ABSENT.

Why a copy and not a guard: a guard inside the student's process can be walked around (the
original code is still in memory, reachable by `gc`, a frame or a module attribute). In the copy,
the body of every function an implement exercise asks for (`exercise.toml`'s `delegation`), of
every model function a check compares with (`suite.model(...)`) and of every predict oracle
(`PredictSuite(oracle=...)`) is replaced by one line that raises "this is the function you
write". Line numbers are kept, so a traceback still points at the right line. Only Python
sources of the layers a check imports are copied: no catalog (no `sealed.json`, no solution, no
wrong submission), no CLI, no tests, no docs.

A graded function's arithmetic often lives in a helper it calls (`compute_q_params` is
`_raw_scales` and a normalisation; `can_move_to_device` is `_kind` and `Policy.moves`). A
submission that calls the helper hands the work over as surely as one that calls the graded
function, so `BUILT_FROM` names, per graded function, the helpers and twins (`flex_q_params`, the
same scale formula for Flex) it is built from, and they are removed too: absent from the fork
that grades the exercise, put back in every other one, like the graded functions themselves.

The checks of exercise Y may run the model's version of exercise X's function (a transfer runs
through the handle registry). So, per exercise, `restores(exercise)` gives the *other*
exercises' graded functions, compiled from their original source in the teacher's process
(`compiled`): the fork that grades exercise Y receives them as data and puts them back, and never
receives Y's own. See `routerlab.exercises.engine.jailhost`.

The image is built once per RouterLab source (a content hash names its folder) and reused. Every
use marks it; building a new one keeps the `KEEP` images used last and removes older ones (and
staging folders a killed build left behind), so upgrading RouterLab, or editing a checkout,
does not grow the cache without end.
"""

from __future__ import annotations
import __future__

import ast
import base64
import compileall
import hashlib
import json
import marshal
import os
import shutil
import tempfile
import textwrap
import time
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..catalog import Catalog

ABSENT = "this is the function you write"
"""The words every removed function raises with (the teacher's side recognises them)."""
LAYERS = ("core", "present", "teaching", "exercises")
"""The package's folders a check may import; the jail gets their Python sources only."""
_SKIPPED = ("exercises/catalog/",)
KEEP = 4
"""Images kept in the cache besides a new one: those used last, so two RouterLab versions (two
courses, a checkout and an install) grading side by side never remove each other's."""
BUILT_FROM: dict[str, tuple[str, ...]] = {
    "routerlab.core.quant.calibration:compute_q_params": (
        "routerlab.core.quant.calibration:_raw_scales",
        "routerlab.core.quant.calibration:flex_q_params"),
    "routerlab.core.quant.calibration:compute_range": (
        "routerlab.core.quant.calibration:flex_range",),
    "routerlab.core.router.tensor:RouterTensor.drop": (
        "routerlab.core.router.tensor:RouterTensor._release",),
    "routerlab.core.fix.guard:is_quantized_handle": ("routerlab.core.fix.guard:_kind",),
    "routerlab.core.fix.guard:can_move_to_device": (
        "routerlab.core.fix.guard:_kind", "routerlab.core.base.policies:Policy.moves"),
}
"""Per graded function, the model's helpers that hold its arithmetic, and its twins elsewhere in
the model: removed with it (a name the graded function's module only uses is listed here too, so
a reader sees the whole set in one place)."""
JAIL_PACKAGE = "/jail/pkg"
"""Where a jail mounts the image's `pkg/` (`routerlab.exercises.engine.jail`): the file names
the image's modules have inside it."""
STALE_STAGING_S = 3600.0
"""A staging folder older than this is a build that was killed: no build takes an hour."""


@dataclass(frozen=True)
class Removed:
    """One function whose body the image lacks, and how to put it back (as data)."""

    target: str
    """`module:Qual.name`, as in `exercise.toml`."""
    path: str
    """The file inside the package, e.g. `core/router/handles.py`."""
    lineno: int
    """The first line of the `def` (decorators excluded)."""
    source: str
    """The original `def` text, dedented."""
    owner: str
    """The class the function is defined in (`""` at module level), for name mangling."""
    graded_by: tuple[str, ...] = ()
    """For a helper of `BUILT_FROM`: the graded functions built from it (the forks that grade
    them never get it back)."""


@dataclass(frozen=True)
class Image:
    """A built image: `root` (what the jail mounts) holds `routerlab/`, `removed` every function
    it lacks."""

    root: Path
    removed: dict[str, Removed]
    targets: frozenset[str] = frozenset()
    cache_dir: Path | None = None
    """What it was built from (`build_image`'s arguments), to build it again if the cache's
    pruning (another RouterLab's build) removed it while a jail still needed it."""

    def again(self) -> Image:
        """This image, built again where it has been removed (the same one, if not)."""
        if self.root.is_dir():
            return self
        build_image.cache_clear()
        return build_image(self.targets, self.cache_dir)

    def restores(self, delegation: tuple[str, ...]) -> list[dict[str, Any]]:
        """The functions a fork grading an exercise with `delegation` gets back: every removed
        *graded* function except the exercise's own, and every helper of `BUILT_FROM` except those
        the exercise's own are built from (model and oracle helpers never return). Each comes
        compiled (`compiled`): the fork only loads it."""
        keep = set(delegation)
        return [{"target": r.target, "owner": r.owner, "code": compiled(r)}
                for r in self.removed.values()
                if r.target not in keep and ":" in r.target and not keep & set(r.graded_by)]


@cache
def compiled(removed: Removed) -> str:
    """`removed`'s `def`, compiled here once per process, as the jail would compile it (its
    file name and lines inside the jail's copy, `from __future__ import annotations`, no `-O`),
    and marshalled (base64, to travel in the request's JSON). Compiling them in every fork was
    about 0.5 s of CPU a student (some 50 functions, 31 forks); `marshal` is the interpreter's
    own format, and the jail runs this very interpreter (`jail._python`). The data goes from
    the teacher into the jail, never the other way."""
    source, offset = removed.source, removed.lineno - 1
    if removed.owner:
        source = f"class {removed.owner}:\n" + textwrap.indent(source, "    ")
        offset -= 1
    tree = ast.parse(source)
    ast.increment_lineno(tree, offset)
    code = compile(tree, f"{JAIL_PACKAGE}/routerlab/{removed.path}", "exec",
                   flags=__future__.annotations.compiler_flag, dont_inherit=True, optimize=0)
    return base64.b64encode(marshal.dumps(code)).decode("ascii")


def package_root() -> Path:
    return Path(__file__).resolve().parents[2]


def _sources(root: Path) -> list[Path]:
    found = [p for p in sorted(root.glob("*.py")) if p.name != "setup.py"]  # the root's modules
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if "__pycache__" not in rel and not rel.startswith(_SKIPPED):
                found.append(path)
    return found


@cache
def source_digest() -> str:
    """A digest of RouterLab's own sources (what the jail's image is built from): whatever is
    computed from them is computed again when it changes."""
    root = package_root()
    digest = hashlib.sha256()
    for path in _sources(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def graded_targets(catalog: Catalog) -> set[str]:
    return {target for exercise in catalog for target in exercise.delegation}


@cache
def build_image(targets: frozenset[str], cache_dir: Path | None = None) -> Image:
    """The image for these graded functions, built under `cache_dir` (default: the user's cache
    folder) unless a complete one for the same sources is already there."""
    root = package_root()
    sources = _sources(root)
    digest = hashlib.sha256(repr(sorted(targets)).encode() + source_digest().encode())
    base = cache_dir or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = base / "routerlab" / "jail" / digest.hexdigest()[:20]
    mark = folder / "complete"
    if mark.is_file():
        os.utime(mark)  # used now: pruning keeps the images used last
        return Image(folder / "pkg", _read_removed(folder / "removed.json"), targets, cache_dir)
    texts = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sources}
    stripped, removed = strip_sources(texts, targets)
    _write(folder, stripped, removed)
    _prune(folder.parent, keep=folder.name)
    return Image(folder / "pkg", removed, targets, cache_dir)


def _read_removed(path: Path) -> dict[str, Removed]:
    """What `_write` kept of the removed functions: reading it is what spares a check the
    parse of every source (about 130 ms of a 630 ms `exercises check`)."""
    return {target: Removed(**{**fields, "graded_by": tuple(fields.get("graded_by", ()))})
            for target, fields in json.loads(path.read_text(encoding="utf-8")).items()}


def _prune(cache: Path, keep: str) -> None:
    """Remove all but the `KEEP` images used last (besides `keep`, just built) and staging
    folders left by killed builds. A folder another process removes first is skipped."""
    images = sorted((p for p in cache.iterdir() if p.name != keep and (p / "complete").is_file()),
                    key=lambda p: (p / "complete").stat().st_mtime, reverse=True)
    now = time.time()
    stale = [p for p in cache.glob(".building-*") if now - p.stat().st_mtime > STALE_STAGING_S]
    for old in images[KEEP:] + stale:
        shutil.rmtree(old, ignore_errors=True)


def _write(folder: Path, texts: dict[str, str], removed: dict[str, Removed]) -> None:
    """Write the copy beside its final place, then rename it in: a concurrent builder (another
    worker) never sees half an image. The jail mounts `pkg/` alone: `removed.json` (the removed
    functions' sources, which the teacher's side hands back per exercise) stays outside it."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(folder.parent, 0o755)
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=folder.parent))
    for rel, text in texts.items():
        target = staging / "pkg" / "routerlab" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    # Compiled here, once: the jail runs Python with -B on a read-only mount, so without them
    # every jail would compile every module it imports again (most of a jail's start).
    compileall.compile_dir(staging / "pkg", quiet=1, workers=1)
    (staging / "removed.json").write_text(
        json.dumps({target: asdict(r) for target, r in removed.items()}), encoding="utf-8")
    (staging / "complete").write_text("ok\n")
    for path in [staging, *staging.rglob("*")]:  # the jail runs as another user
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    try:
        staging.rename(folder)
    except OSError:  # another process finished first
        shutil.rmtree(staging, ignore_errors=True)


def strip_sources(texts: dict[str, str], targets: frozenset[str]
                  ) -> tuple[dict[str, str], dict[str, Removed]]:
    """`texts` (package-relative path -> source) with the graded functions, the helpers they are
    built from (`BUILT_FROM`), the checks' model functions and the predict oracles removed; and
    what was removed."""
    helpers = built_from(targets)
    wanted: dict[str, set[str]] = {}
    for target in [*targets, *helpers]:
        module, _, qualname = target.partition(":")
        rel = module.removeprefix("routerlab.").replace(".", "/")
        path = f"{rel}.py" if f"{rel}.py" in texts else f"{rel}/__init__.py"
        wanted.setdefault(path, set()).add(qualname)
    for path, text in texts.items():
        if path.startswith("exercises/checks/"):
            wanted.setdefault(path, set()).update(_answer_functions(ast.parse(text)))
    out, removed = dict(texts), {}
    for path, names in wanted.items():
        if path not in texts:
            raise ValueError(f"a graded function's module is not in the package: {path}")
        out[path], found = _strip(texts[path], names)
        missing = names - set(found)
        if missing:
            raise ValueError(f"{path} has no function {sorted(missing)} to remove")
        module = "routerlab." + path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        for qualname, (lineno, source, owner) in found.items():
            graded = f"{module}:{qualname}"
            key = graded if graded in targets or graded in helpers else f"{module}.{qualname}"
            removed[key] = Removed(key, path, lineno, source, owner, helpers.get(graded, ()))
    return out, removed


def built_from(targets: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Each helper of `BUILT_FROM` that one of `targets` is built from -> those targets."""
    found: dict[str, list[str]] = {}
    for target in sorted(targets):
        for helper in BUILT_FROM.get(target, ()):
            found.setdefault(helper, []).append(target)
    return {helper: tuple(graded) for helper, graded in found.items()}


def _answer_functions(tree: ast.Module) -> set[str]:
    """The module-level functions a checks module hands to `suite.model(...)` or `oracle=`."""
    names: set[str] = set()
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        values: list[ast.expr] = []
        if isinstance(node.func, ast.Attribute) and node.func.attr == "model":
            values = [k.value for k in node.keywords]
        values += [k.value for k in node.keywords if k.arg == "oracle"]
        for value in values:
            names.update(n for n in _handed(value) if n in defined)
    return names


def _handed(value: ast.expr) -> list[str]:
    """The functions an expression hands over: a name, or the arguments of a wrapper call
    (`oracle=_once(_answers)` hands `_answers`; the wrapper `_once` stays)."""
    if isinstance(value, ast.Name):
        return [value.id]
    if isinstance(value, ast.Call):
        return [n for arg in value.args for n in _handed(arg)]
    return []


def _strip(text: str, qualnames: set[str]) -> tuple[str, dict[str, tuple[int, str, str]]]:
    lines = text.splitlines(keepends=True)
    found: dict[str, tuple[int, str, str]] = {}
    for node, qualname, owner in _functions(ast.parse(text)):
        if qualname not in qualnames:
            continue
        body = node.body
        first = body[1] if _docstring(body) and len(body) > 1 else body[0]
        start, end = first.lineno - 1, node.end_lineno or node.lineno
        if _docstring(body) and len(body) == 1:
            start = end  # a docstring-only function: nothing to remove
        indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())] if start < end \
            else " " * (node.col_offset + 4)
        original = "".join(lines[node.lineno - 1:end])
        found[qualname] = (node.lineno, _dedent(original, node.col_offset), owner)
        message = f"{ABSENT}: RouterLab's own {qualname} is absent while your code is graded"
        stub = (f"{indent}raise __import__('routerlab.exercises.engine.guard', fromlist=['absent'])"
                f".absent({qualname!r}, {message!r})\n")
        lines[start:end] = [stub] + ["\n"] * (end - start - 1)
    return "".join(lines), found


def _functions(tree: ast.Module) -> list[tuple[ast.FunctionDef, str, str]]:
    out: list[tuple[ast.FunctionDef, str, str]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out.append((node, node.name, ""))
        elif isinstance(node, ast.ClassDef):
            out += [(item, f"{node.name}.{item.name}", node.name) for item in node.body
                    if isinstance(item, ast.FunctionDef)]
    return out


def _docstring(body: list[ast.stmt]) -> bool:
    first = body[0] if body else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
        and isinstance(first.value.value, str)


def _dedent(text: str, columns: int) -> str:
    """`text` moved `columns` to the left (a line indented less, inside a string, loses only
    its spaces)."""
    return "".join(line[columns:] if not line[:columns].strip() else line.lstrip(" ")
                   for line in text.splitlines(keepends=True))
