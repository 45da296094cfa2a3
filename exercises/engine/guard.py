"""Inside the student's process: take RouterLab's own answers out of reach, and fence the code in.

Two things run here before the student's file is loaded, both set up by the harness:

- **Delegation guard.** The functions an implement exercise asks for (`exercise.toml`'s
  `delegation` list, e.g. `routerlab.core.router.handles:HandleContainer.get`), and the helpers they
  are built from (`routerlab.exercises.engine.jail_image.BUILT_FROM`), get a new code object:
  called while any frame of the student's file is on the stack, they raise `DelegationError`
  instead of answering, and the harness reports the exercise as delegated. The checks' own calls
  (no student frame on the stack) still reach the model. Because the function object itself is
  changed, every alias of it (`from … import`, a class attribute, a registry) is guarded too.
- **Audit hook** (`sys.addaudithook`, which Python code cannot remove). While student code runs
  it refuses: writing, renaming or deleting files outside the scratch folder, reading
  RouterLab's own sources (which would rebuild an unguarded copy), starting processes or
  threads, sending signals, `ctypes`, and the introspection that could reach a guarded
  function's original code (`gc.get_referrers`…, re-assigning `__code__`).

This is defence in depth on top of the real boundary: the verdict is computed in the parent from the
values this process returns (see `routerlab.exercises.engine.judge`), so nothing that escapes these
fences can turn into a pass by itself. It is not a security sandbox against a determined attacker
with time (see docs/exercises.md, "What the checks trust").
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any


class DelegationError(BaseException):
    """The student's code called RouterLab's own version of the function it must write.

    A BaseException, so that a student's `except Exception` does not hide it."""


_student_files: set[str] = set()
_originals: dict[str, Callable[..., Any]] = {}
delegated: list[str] = []
"""The guarded functions the student's code called (read by the harness)."""

_ALWAYS_DENIED = {
    "os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "subprocess.Popen", "os.kill", "os.killpg", "signal.pthread_kill",
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.call_function",
    "ctypes.cdata", "ctypes.cdata/buffer", "ctypes.addressof", "ctypes.string_at",
    "ctypes.wstring_at", "ctypes.set_errno", "gc.get_objects", "gc.get_referrers",
    "gc.get_referents", "socket.connect", "socket.bind", "sys.setprofile", "sys.settrace",
}
_PATH_EVENTS = {"os.remove", "os.rmdir", "os.rename", "os.mkdir", "os.chmod", "os.chown",
                "os.symlink", "os.link", "os.truncate", "os.utime", "shutil.rmtree",
                "shutil.copyfile", "shutil.copymode", "shutil.copystat", "shutil.copytree",
                "shutil.move", "shutil.chown", "os.chflags", "os.lchflags", "os.setxattr",
                "os.removexattr"}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def protect(delegation: Iterable[str], student_files: Iterable[str], scratch: str) -> None:
    """Guard the exercised functions and install the audit hook (once per process)."""
    _student_files.update(os.path.realpath(f) for f in student_files)
    for target in delegation:
        _guard(target)
    package_root = os.path.realpath(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    sys.addaudithook(_hook(os.path.realpath(scratch), package_root))


def mark_student(path: str) -> None:
    """Name the student's file (in a jail's fork, where `protect` does not run)."""
    _student_files.add(os.path.realpath(path))


def absent(target: str, message: str) -> DelegationError:
    """What a function absent from the jail's image raises (its stub, written by
    `routerlab.exercises.engine.jail_image`): a BaseException, so that a wrapper's
    `except Exception` cannot swallow it, and recorded when the student's code made the call, so
    that even one caught with `except BaseException` is reported."""
    if student_on_stack():
        delegated.append(target)
    return DelegationError(message)


def student_on_stack() -> bool:
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename in _student_files:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _enter(key: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if student_on_stack():
        delegated.append(key)
        raise DelegationError(
            f"your code calls RouterLab's own {key.split(':')[-1]}, the function this exercise "
            "asks you to write; write it yourself (the checks compare your version with it)")
    return _originals[key](*args, **kwargs)


def _template(*args: Any, **kwargs: Any) -> Any:
    import sys

    return sys.modules["routerlab.exercises.engine.guard"]._enter("KEY", args, kwargs)


def _guard(target: str) -> None:
    """Give the function named `module:Qual.name` the guard's code, keeping a private copy."""
    module_name, _, qualname = target.partition(":")
    owner: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        owner = vars(owner).get(part) if isinstance(owner, type) else getattr(owner, part)
    if isinstance(owner, property):  # a computed attribute (`Policy.moves`): its getter
        owner = owner.fget
    function = owner if isinstance(owner, types.FunctionType) else getattr(owner, "__func__", None)
    if not isinstance(function, types.FunctionType) or function.__closure__:
        raise TypeError(f"{target} is not a plain function and cannot be guarded")
    copy = types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, None)
    copy.__kwdefaults__ = function.__kwdefaults__
    _originals[target] = copy
    consts = tuple(target if c == "KEY" else c for c in _template.__code__.co_consts)
    function.__code__ = _template.__code__.replace(
        co_consts=consts, co_name=function.__code__.co_name,
        co_qualname=function.__code__.co_qualname)


def _hook(scratch: str, package_root: str) -> Callable[[str, tuple[Any, ...]], None]:
    inside = scratch + os.sep
    package = package_root + os.sep

    def outside(path: Any) -> bool:
        if isinstance(path, int) or path is None:
            return False
        real = os.path.realpath(os.fsdecode(path))
        return real != scratch and not real.startswith(inside)

    def deny(event: str) -> None:
        raise PermissionError(f"RouterLab's checks do not allow {event} in exercise code")

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in _ALWAYS_DENIED:
            deny(event)
        elif event == "open":
            path, mode, flags = (args + (None, None, None))[:3]
            if isinstance(path, int) or path is None:
                return
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & _WRITE_FLAGS)
            if writes and outside(path):
                deny(f"writing {os.fsdecode(path)} (outside the check's scratch folder)")
            if not writes and os.path.realpath(os.fsdecode(path)).startswith(package) \
                    and student_on_stack():
                deny("reading RouterLab's own source")
        elif event in _PATH_EVENTS:
            if any(isinstance(a, str | bytes | os.PathLike) and outside(a) for a in args):
                deny(f"{event} outside the check's scratch folder")
        elif event == "_thread.start_new_thread" and student_on_stack():
            deny("starting a thread")
        elif event == "object.__setattr__" and len(args) > 1 and args[1] == "__code__":
            deny("replacing a function's code")

    return hook
