"""Inside a grading jail: import the model once, then grade each exercise in a fork of it.

Started by `routerlab.exercises.engine.jail` as the jail's process 1 (`bwrap --as-pid-1`) from the
package copy of `routerlab.exercises.engine.jail_image`, in which every graded function is absent.
It imports numpy and every RouterLab module once (the warm interpreter), then serves requests:

- fd 0 (from the teacher): a header line `{"exercise": ID, "bytes": N}`, read byte by byte
  by this process, then N bytes of payload read *only by the fork* that grades it: the student's
  source, the check module, and the other exercises' graded functions to put back
  (`Image.restores`). So the warm process never holds any function's body, and no fork ever
  holds the body of the function it grades.
- fd 1 (to the teacher): one control line per exercise, `{"done": ID, "status": S}`, written by
  this process only after every other process in the jail is dead. Forks cannot write there:
  they replace it at once, and this process is not dumpable, so `/proc/1/fd` is closed to them.
- fd 2: the student's printed output (the teacher keeps the end of it).
- `config["results_fd"]`: the results of the fork, one JSON line per event (as
  `routerlab.exercises.engine.harness` writes them).

A fork gets its own limits (CPU seconds, address space, file size), a fresh folder under the
jail's private /tmp (the only writable place: /dev holds only null, zero and urandom, and there
is no /dev/shm), and exits; /tmp is wiped before the next exercise and checked empty. The
control line says how many entries the wipe could not remove (`left`); if any, this process
ends and the teacher's side fails that exercise and starts a fresh jail for the next one, so
nothing one fork stores reaches another. Nothing here decides a
grade: the teacher's process compares the data with answers that never enter the jail.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import json
import os
import resource
import signal
import stat
import sys
import tempfile
import time
from typing import Any

_PR_SET_DUMPABLE = 4
HEADER_LIMIT = 4096
WIPE_DEPTH = 64
"""Folders deeper than this under /tmp are not walked: the wipe reports them as left over."""


WARM = ("numpy", "numpy.random", "ml_dtypes", "concurrent.futures",
        "routerlab.exercises.engine.guard", "routerlab.exercises.engine.harness")
"""Modules the model, the checks or every fork (`_grade`: the guard and the harness) import
lazily, on first use: imported here once, so no fork pays for them (ml_dtypes' extension alone
takes a second or two on a loaded machine; numpy.random and the guard were some 0.1 s of CPU a
student, imported again in fork after fork)."""


def main(config: dict[str, Any]) -> int:

    # Only the check modules asked for, and what they import: with no guard in the jail, a
    # module a probe needs later is imported in its fork (importing every module took three
    # times as long). A whole student also gets the model's lazy imports (WARM) up front.
    for name in WARM if config.get("warm") else ("numpy",):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    for name in config["checks"]:
        importlib.import_module(f"routerlab.exercises.checks.{name}")
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    control = os.fdopen(1, "w", encoding="utf-8")
    _say(control, ready=True)
    while True:
        header = _header()
        if header is None or header.get("quit"):
            return 0
        pid = os.fork()
        if pid == 0:
            _child(header, config)  # never returns
        _, status = os.waitpid(pid, 0)
        _kill_others()
        left = _wipe("/tmp")
        _say(control, done=header.get("exercise"), status=status, left=left)
        if left:  # the teacher's side fails the exercise and starts a fresh jail
            return 0


def drop(user: list[int] | None) -> None:
    """The first thing this process does, before it reads any file but the interpreter's: under
    a root teacher (`user`: the host uid and gid of `nobody`, from
    `routerlab.exercises.engine.jail`), leave root for good, so that no fork ever runs as the
    host's root (setting every uid clears every capability bubblewrap left for this); and
    become not dumpable, so that `/proc/1` (its fds, its memory, `oom_score_adj`) belongs to
    root and is closed to the forks."""
    if user is not None:
        os.setgroups([])
        os.setresgid(user[1], user[1], user[1])
        os.setresuid(user[0], user[0], user[0])
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


SELFTEST_WRITES = ("/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches",
                   "/proc/sysrq-trigger", "/proc/1/oom_score_adj", "/proc/1/comm")
SELFTEST_READS = ("/proc/loadavg", "/proc/1/cmdline", "/proc/1/environ")
SELFTEST_FILES = 20000
"""Entries of /proc the self-test looks at at most (all of them, on today's kernels)."""


def selftest() -> int:
    """Fork once, as a student's exercise is forked, and print what that fork may do: its
    uid on the host, its capabilities, and the /proc files it can write or read that it must
    not (the teacher's `jail.confinement_problems` judges them)."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            print(json.dumps(_facts()), flush=True)
        except BaseException:  # noqa: BLE001 - the teacher reads silence as a failed test
            code = 70
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _facts() -> dict[str, Any]:
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines()
                  if ":" in line)
    uid = os.getuid()
    host = None
    for line in open("/proc/self/uid_map").read().splitlines():
        inside, outside, count = (int(n) for n in line.split())
        if inside <= uid < inside + count:
            host = outside + uid - inside
    writable = [p for p in SELFTEST_WRITES if os.access(p, os.W_OK)]
    writable += [p for p in _proc_files() if p not in writable and os.access(p, os.W_OK)]
    return {"uid": uid, "host_uid": host,
            "capabilities": int(status["CapEff"], 16) | int(status["CapPrm"], 16),
            "no_new_privs": status.get("NoNewPrivs", "").strip() == "1",
            "writable": writable,
            "readable": [p for p in SELFTEST_READS if os.access(p, os.R_OK)]}


def _proc_files() -> list[str]:
    """Every file of /proc but those of processes (a fork may write its own)."""
    out: list[str] = []
    for top, folders, files in os.walk("/proc"):
        if top == "/proc":
            folders[:] = [f for f in folders if not f.isdigit()
                          and f not in ("self", "thread-self")]
        out += [os.path.join(top, f) for f in files]
        if len(out) > SELFTEST_FILES:
            break
    return out


def _header() -> dict[str, Any] | None:
    """One line from fd 0, a byte at a time: the payload after it belongs to the fork."""
    line = bytearray()
    while len(line) < HEADER_LIMIT:
        byte = os.read(0, 1)
        if not byte:
            return None
        if byte == b"\n":
            value = json.loads(line)
            return value if isinstance(value, dict) else None
        line += byte
    return None


def _child(header: dict[str, Any], config: dict[str, Any]) -> None:
    code = 0
    try:
        os.dup2(2, 1)  # the control line is the warm process's alone
        payload = _read_exactly(0, int(header["bytes"]))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        request = json.loads(payload)
        del payload
        _limits(request)
        results = os.fdopen(int(config["results_fd"]), "w", encoding="utf-8")
        os.environ["ROUTERLAB_RESULT_FD"] = str(config["results_fd"])  # as in the sandbox
        work = tempfile.mkdtemp(prefix="work-", dir="/tmp")
        os.chdir(work)
        os.environ.update({"HOME": work, "TMPDIR": work})
        _restore(request["restores"])
        del request["restores"]
        _grade(request, work, results)
    except BaseException:  # noqa: BLE001 - whatever happens, this fork ends here
        code = 70
        with contextlib.suppress(BaseException):
            import traceback

            traceback.print_exc(limit=-3)
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _grade(request: dict[str, Any], work: str, results: Any) -> None:
    from ..checks.base import Suite
    from . import guard, harness

    module = importlib.import_module(f"routerlab.exercises.checks.{request['checks']}")
    suite = next(v for v in vars(module).values()
                 if isinstance(v, Suite) and v.exercise_id == request["exercise"])
    path = os.path.join(work, request["file_name"])
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as handle:
        handle.write(request["source"])  # the bytes handed in, not-UTF-8 ones too
    guard.mark_student(path)  # a call of an absent function from this file is recorded
    harness._emit(results, ready=True)  # the student's time limit starts here
    harness._run(suite, path, request["display"], results, request.get("params"))
    harness._emit(results, done=True, delegated=sorted(set(guard.delegated)))
    results.close()


def _limits(request: dict[str, Any]) -> None:
    for which, value in ((resource.RLIMIT_CPU, int(request["cpu"])),
                         (resource.RLIMIT_AS, int(request["memory"])),
                         (resource.RLIMIT_FSIZE, int(request["fsize"])),
                         (resource.RLIMIT_CORE, 0)):
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (value, value))


def _restore(entries: list[dict[str, Any]]) -> None:
    """Put back the model's graded functions of the *other* exercises (sent as data: each
    `def` compiled by the teacher, `jail_image.compiled`)."""
    import base64
    import marshal

    for entry in entries:
        module_name, _, qualname = entry["target"].partition(":")
        module = importlib.import_module(module_name)
        owner: Any = module
        for part in qualname.split("."):
            owner = vars(owner).get(part) if isinstance(owner, type) else getattr(owner, part)
        function = _plain(owner)
        code = marshal.loads(base64.b64decode(entry["code"]))
        space: dict[str, Any] = {}
        exec(code, vars(module), space)  # noqa: S102 - RouterLab's own source, sent by the teacher
        made: Any = space[entry["owner"]].__dict__ if entry["owner"] else space
        function.__code__ = _plain(made[qualname.split(".")[-1]]).__code__


def _plain(value: Any) -> Any:
    """The function behind a method, class or static method, or property (its getter)."""
    value = getattr(value, "__func__", value)
    return value.fget if isinstance(value, property) else value


def _read_exactly(fd: int, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _kill_others() -> None:
    """Every process in the jail but this one, killed and reaped, until none is left."""
    from .sandbox import reap_exited

    me = os.getpid()
    for _ in range(500):
        alive = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != me]
        for pid in alive:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        reap_exited()
        if not alive:
            return
        time.sleep(0.002)


def _wipe(folder: str) -> int:
    """Empty `folder` (the jail's /tmp) after a fork; how many entries are still there.

    Folders are made writable before they are emptied (a fork may have made one read-only, or
    unreadable, to keep a file past the wipe). Nothing a fork leaves may reach the next one: the
    teacher's side fails the exercise of a fork whose leftovers stay, and replaces the jail."""
    try:
        _empty(folder, 0)
        return len(os.listdir(folder))
    except (OSError, RecursionError):
        return 1


def _empty(folder: str, depth: int) -> None:
    if depth:  # /tmp itself is root's under a root teacher (mode 1777), and stays as it is
        os.chmod(folder, 0o700)
    if depth > WIPE_DEPTH:
        raise RecursionError(f"more than {WIPE_DEPTH} folders deep")
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISDIR(os.lstat(path).st_mode):
                _empty(path, depth + 1)
                os.rmdir(path)
            else:
                os.unlink(path)


def _say(control: Any, **data: Any) -> None:
    control.write(json.dumps(data) + "\n")
    control.flush()


if __name__ == "__main__":
    _config = json.loads(sys.argv[1])
    drop(_config.get("user"))
    if _config.get("selftest"):
        sys.exit(selftest())
    sys.path[:0] = _config["path"]
    sys.dont_write_bytecode = True
    _host = importlib.import_module("routerlab.exercises.engine.jailhost")
    sys.exit(_host.main(_config))
