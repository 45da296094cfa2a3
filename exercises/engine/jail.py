"""Grading in an OS jail (bubblewrap): one jail per student (a class run keeps each worker's
jail from one student to the next, `jail_keeper`), one fork per exercise.

`Jail` starts `bwrap` with:

- under an ordinary teacher, unshared user, pid, network, IPC, UTS and cgroup namespaces
  (`--unshare-all`); under a root teacher, the same but the user namespace, and the jail's first
  process becomes the host's `nobody` before it reads a file of RouterLab's (`_jail_user`,
  `jailhost.drop`), so no student code runs as the host's root; `/proc`'s control files
  read-only and `/proc/loadavg`, `/proc/1/cmdline` masked (`PROC_READ_ONLY`, `PROC_MASKED`);
  a self-test fork (`unavailable`, `confinement_problems`) before any student; `--as-pid-1`
  (the warm host is init: a signal from a student's fork cannot kill it), `--die-with-parent`
  (the jail dies with the teacher's process), `--new-session` (no terminal to inject into);
- a seccomp filter (`routerlab.exercises.engine.seccomp`) and, where bubblewrap has it,
  `--disable-userns`: no namespace inside the jail, no mount, no io_uring, bpf, perf events,
  keyrings, ptrace, nor System V / POSIX IPC objects (which would outlive a fork);
- a read-only root made only of the system's libraries, the Python installation, the
  site-packages folders numpy comes from, and the package copy of
  `routerlab.exercises.engine.jail_image` at /jail/routerlab: no catalog, no solution, no output
  folder, no home, nothing of the teacher's but those read-only folders; a read-only /dev that
  holds only null, zero and urandom (no /dev/shm);
- a private tmpfs /tmp of `SCRATCH_BYTES`, the only place that can be written, emptied after
  every fork and checked empty: a fork whose leftovers stay fails its exercise, and the next
  exercise gets a fresh jail;
- limits: processes and memory of the whole jail (`pids` and `memory` cgroups where the machine
  lets us make them; RLIMIT_NPROC elsewhere, which the kernel does not apply to root), open
  files; per fork CPU seconds, address space, file size;
- a wall-clock limit per exercise, enforced here: past it the whole jail is killed (every process
  in it dies with its pid namespace) and the next exercise gets a fresh jail.

The student's source and the probe inputs go in as data on a pipe; what comes out (results, printed
output) is read with a size cap, and `routerlab.exercises.engine.bounded` checks depth and size
before any JSON is parsed. The reply has the shape `routerlab.exercises.engine.sandbox` gives, so
`routerlab.exercises.engine.runner` judges both the same way.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..catalog import Exercise
from . import seccomp
from .jail_image import JAIL_PACKAGE, Image

INSTALL = "sudo apt-get install bubblewrap"
"""What `recheck` tells a teacher whose machine has no bubblewrap (Debian/Ubuntu)."""
SCRATCH_BYTES = 64 * 1024 * 1024
JAIL_PROCESSES = 64
JAIL_MEMORY = 4 * 1024 ** 3
"""Bytes of memory the whole jail may use (the warm host, every fork, the tmpfs)."""
OPEN_FILES = 256
STARTUP_LIMIT = 60.0
"""Seconds the warm host may take to import numpy and the model, and a fork to get ready to
run the student's code (a loaded machine must not fail a student for RouterLab's start-up)."""
START_ATTEMPTS = 2
"""Starts of a jail tried before an exercise fails with "the grading jail did not start": no
student code has run yet, so a start that fails is RouterLab's trouble, and a second try is
cheap next to a false fail."""
JAIL_ROOT = "/jail"
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom")
"""The only device nodes in the jail's /dev."""
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs", "pressure", "acpi", "driver",
                  "sysvipc", "tty")
"""The kernel's control files under /proc, bound read-only over themselves: the jail's /proc
is the kernel's, and `/proc/sys/kernel/core_pattern` written by root runs a program as the
host's root at the next crash."""
PROC_MASKED = ("loadavg", "1/cmdline")
"""/proc files replaced by an empty one no one may read: the host's load (a side channel on
the other students being graded) and the warm host's command line (the teacher's interpreter
path and the jail's configuration)."""
JAIL_USER = "nobody"
NOBODY_ID = 65534
"""The host user student code runs as under a root teacher (its id where no `nobody` exists)."""
SELFTEST_HOST = f"{JAIL_ROOT}/selftest/jailhost.py"


@dataclass(frozen=True)
class Limits:
    memory: int = 2 * 1024 ** 3
    fsize: int = 16 * 1024 * 1024
    result_bytes: int = 8 * 1024 * 1024
    output_bytes: int = 4000


def bwrap() -> str | None:
    return shutil.which("bwrap")


@cache
def unavailable() -> str | None:
    """Why no jail can run here (None when one can): bubblewrap missing, present but refused by
    the kernel (user namespaces disabled, a container that forbids them), or a jail that fails
    its self-test (`confinement_problems`): RouterLab grades in no jail it cannot trust."""
    found = bwrap()
    if found is None:
        return f"bubblewrap is not installed (install it: `{INSTALL}`)"
    try:
        filtered = seccomp.filter_fd()
    except ValueError as error:  # an architecture the filter has no numbers for
        return f"bubblewrap cannot run a jail here: {error}"
    empty = _empty_fds()
    host = str(Path(__file__).with_name("jailhost.py"))
    config = {"selftest": True, "user": _jail_user()}
    try:
        done = subprocess.run([found, *_mounts(empty), "--ro-bind", host, SELFTEST_HOST,
                               "--remount-ro", "/", "--as-pid-1", "--seccomp", str(filtered),
                               "--", _python(), "-I", "-S", "-B", SELFTEST_HOST,
                               json.dumps(config)],
                              capture_output=True, timeout=60, check=False,
                              pass_fds=(filtered, *empty))
    finally:
        os.close(filtered)
        _close(empty)
    if done.returncode:
        why = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no reason"]
        return f"bubblewrap cannot run a jail here: {why[0]}"
    user = _jail_user()
    problems = confinement_problems(done.stdout, os.getuid() if user is None else user[0])
    if problems:
        return ("the grading jail is not safe on this machine, so RouterLab grades nobody in it: "
                + "; ".join(problems))
    return None


def confinement_problems(report: bytes, expected_uid: int) -> list[str]:
    """What the jail's self-test (a fork of `jailhost` in `selftest` mode, set up as a
    student's fork is) found that a student's code could do and must not: run as the host's
    root, hold a capability, write a kernel control file, or read the teacher's process
    (`/proc/1/cmdline`: the interpreter's path and the jail's config). Empty: safe."""
    try:
        facts = json.loads(report.decode("utf-8", errors="replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        return ["its self-test said nothing readable"]
    if not isinstance(facts, dict):
        return ["its self-test said nothing readable"]
    problems = []
    if facts.get("host_uid") != expected_uid or facts.get("host_uid") in (0, None):
        problems.append(f"student code runs as host uid {facts.get('host_uid')}")
    if facts.get("capabilities") != 0:
        problems.append("student code holds capabilities")
    if facts.get("no_new_privs") is not True:
        problems.append("student code may gain privileges (no_new_privs is off)")
    for path in facts.get("writable") or []:
        problems.append(f"student code can write {path}")
    for path in facts.get("readable") or []:
        problems.append(f"student code can read {path}")
    return problems


@cache
def _disables_userns() -> bool:
    """Whether this bubblewrap has `--disable-userns` (0.8.0 and later) and this kernel lets it
    work (it nests one more user namespace, which a locked-down host may refuse: the seccomp
    filter then is what refuses `unshare`)."""
    found = bwrap()
    if found is None:
        return False
    helped = subprocess.run([found, "--help"], capture_output=True, text=True, timeout=30,
                            check=False)
    if "--disable-userns" not in helped.stdout + helped.stderr:
        return False
    tried = subprocess.run([found, "--unshare-user", "--disable-userns", "--ro-bind", "/", "/",
                            "--", _python(), "-I", "-S", "-c", "pass"],
                           capture_output=True, timeout=60, check=False)
    return tried.returncode == 0


def _python() -> str:
    """The real interpreter (a venv's `python` is a link into its base installation)."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def _site_folders() -> list[Path]:
    """The `site-packages` folders on this process's path (numpy and its dependencies). Only
    those: never the working directory or a checkout. A folder that holds an installed
    RouterLab (a wheel: numpy sits beside it) is kept, and `_mounts` hides its `routerlab`
    under an empty tmpfs, so the catalog stays out while numpy comes in."""
    prefix = Path(sys.base_prefix).resolve()
    out: list[Path] = []
    for entry in sys.path:
        if not entry:
            continue
        path = Path(entry).resolve()
        if path.name not in ("site-packages", "dist-packages") or not path.is_dir() \
                or path.is_relative_to(prefix) or path in out:
            continue
        out.append(path)
    return out


def _jail_user() -> list[int] | None:
    """The host uid and gid student code runs as when the teacher is root (`nobody`): a jail
    that root starts is otherwise root on the host (`/proc/self/uid_map` `0 0 1`), which may
    write `/proc/sys` and whatever else root owns. None for an ordinary teacher: the jail's user
    namespace maps the jail to the teacher's own uid, which holds no privilege to lose."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(JAIL_USER)
    except KeyError:
        return [NOBODY_ID, NOBODY_ID]
    return [entry.pw_uid, entry.pw_gid]


def _empty_fds() -> list[int]:
    """One pipe's read end at end of file per masked /proc file (`PROC_MASKED`): bubblewrap
    reads each and closes it, so no two masks may share one."""
    out = []
    for _ in PROC_MASKED:
        read, write = os.pipe()
        os.close(write)
        out.append(read)
    return out


def _close(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _mounts(empty: list[int]) -> list[str]:
    """bubblewrap's arguments for the jail's namespaces, root and /proc; `empty`: the fds of
    `_empty_fds`, the content of the masked /proc files."""
    args = ["--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
            "--setenv", "PYTHONIOENCODING", "utf-8", "--setenv", "HOME", "/tmp",
            "--setenv", "OPENBLAS_NUM_THREADS", "1", "--setenv", "OMP_NUM_THREADS", "1",
            "--setenv", "MKL_NUM_THREADS", "1", "--setenv", "ROUTERLAB_NO_NUMBA", "1",
            "--hostname", "jail"]
    if _jail_user() is None:
        args += ["--unshare-all"]
        if _disables_userns():
            args += ["--unshare-user", "--disable-userns"]
    else:  # root: the host's user namespace, left at once for `nobody` (`jailhost.drop`)
        args += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                 "--unshare-cgroup-try", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    for name in ("usr", "lib", "lib64", "lib32", "bin", "sbin"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    for name in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime"):
        if os.path.exists(name):
            args += ["--ro-bind", name, name]
    prefix = str(Path(sys.base_prefix).resolve())
    # Every folder the jail's root needs, made 0755: bubblewrap would make them 0700 under a
    # root teacher, which `nobody` could not enter.
    for folder in [*reversed(Path(prefix).parents), Path(JAIL_ROOT)]:
        if str(folder) not in ("/", "/usr") and not str(folder).startswith("/usr/"):
            args += ["--perms", "0755", "--dir", str(folder)]
    if not prefix.startswith("/usr/"):
        args += ["--ro-bind", prefix, prefix]
    for index, folder in enumerate(_site_folders()):
        target = f"{JAIL_ROOT}/site{index}"
        args += ["--ro-bind", str(folder), target]
        if (folder / "routerlab").exists():  # an installed RouterLab: its catalog stays out
            args += ["--tmpfs", f"{target}/routerlab"]
    args += ["--proc", "/proc"]
    for name in PROC_READ_ONLY:
        if os.path.exists(f"/proc/{name}"):
            args += ["--ro-bind", f"/proc/{name}", f"/proc/{name}"]
    for name, fd in zip(PROC_MASKED, empty, strict=True):
        args += ["--perms", "0000", "--ro-bind-data", str(fd), f"/proc/{name}"]
    args += ["--perms", "0755", "--dir", "/dev"]
    for node in DEVICES:  # and no /dev/shm: the root, /dev included, is remounted read-only
        args += ["--dev-bind", node, node]
    args += ["--size", str(SCRATCH_BYTES), "--perms", "1777", "--tmpfs", "/tmp",
             "--chdir", "/tmp"]
    return args


def _site_paths() -> list[str]:
    return [f"{JAIL_ROOT}/site{i}" for i in range(len(_site_folders()))]


_CONTROLLERS = {"pids": {"pids.max": str(JAIL_PROCESSES)},
                "memory": {"memory.limit_in_bytes": str(JAIL_MEMORY)}}
"""Per cgroup v1 controller, the limits written into the jail's cgroup (v2: `pids.max`,
`memory.max`, in one group)."""


class _Cgroup:
    """The jail's cgroups: `pids` caps its processes (a fork bomb stops at `JAIL_PROCESSES`) and
    `memory` its memory all processes together (`JAIL_MEMORY`; RLIMIT_AS is per process).

    Only where this process may make them (root, cgroup v1 hierarchies or v2 with the
    controllers); elsewhere RLIMIT_NPROC caps the processes, which the kernel applies to every
    user but root, and RLIMIT_AS each process's memory."""

    def __init__(self) -> None:
        self.paths: list[Path] = []
        self.caps_processes = False
        """Whether a `pids` limit was made (RLIMIT_NPROC is then not needed)."""
        name = f"routerlab-jail-{os.getpid()}-{time.monotonic_ns()}"
        unified = Path("/sys/fs/cgroup")
        if (unified / "cgroup.subtree_control").exists():
            wanted = {"pids.max": str(JAIL_PROCESSES), "memory.max": str(JAIL_MEMORY)}
            self._make(unified, name, wanted)
            return
        for controller, limits in _CONTROLLERS.items():
            self._make(unified / controller, name, limits)

    def _make(self, base: Path, name: str, limits: dict[str, str]) -> None:
        if not (base / "cgroup.procs").exists() or not os.access(base, os.W_OK):
            return
        _sweep(base)
        path = base / name
        try:
            path.mkdir()
            for file, value in limits.items():
                (path / file).write_text(value)
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()
            return
        self.paths.append(path)
        self.caps_processes |= "pids.max" in limits

    def enter(self) -> None:
        """In the child, before exec: join the cgroups (the jail inherits them)."""
        for path in self.paths:
            with open(path / "cgroup.procs", "w") as handle:
                handle.write(str(os.getpid()))

    def remove(self) -> None:
        for path in self.paths:
            for _ in range(200):
                try:
                    path.rmdir()
                    break
                except OSError:
                    for pid in _read(path / "cgroup.procs").split():
                        with contextlib.suppress(OSError, ValueError):
                            os.kill(int(pid), signal.SIGKILL)
                    time.sleep(0.01)
        self.paths = []


def _sweep(base: Path) -> None:
    """Remove the empty cgroups of teacher processes that died without closing their jails
    (killed mid-run: a Dask worker, a Ctrl-C'd regrade)."""
    for stale in base.glob("routerlab-jail-*"):
        owner = stale.name.split("-")[2]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            with contextlib.suppress(OSError):
                stale.rmdir()


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


class JailDied(Exception):
    """The jail ended or broke its protocol; the exercise in progress gets the reason."""


class Jail:
    """A student's jail (or a class worker's, `jail_keeper`): started on first use, restarted
    after a time-out, leftovers or a death."""

    def __init__(self, image: Image, checks: list[str], limits: Limits = Limits(),
                 warm: bool = True) -> None:
        """`checks`: the check modules the warm host imports (a whole student's: every one in
        the catalog; a single `exercises check`: its own). `warm`: also import the model's lazy
        imports up front (worth it for a whole student, not for one check)."""
        self.image = image
        self.limits = limits
        self.checks = checks
        self.warm = warm
        self.process: subprocess.Popen[bytes] | None = None
        self.cgroup: _Cgroup | None = None
        self._results = -1
        self.started = 0
        self.broken: JailDied | None = None
        """Why this jail could not grade an exercise at all (it did not start, or ended before
        the exercise began): RouterLab's trouble, never the student's, so the class's grader
        marks the student not graded instead of scoring the exercise 0."""

    def __enter__(self) -> Jail:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> None:
        found = bwrap()
        if found is None:
            raise JailDied(f"bubblewrap is not installed (`{INSTALL}`)")
        self.image = self.image.again()  # pruned from the cache meanwhile: built again
        results_read, results_write = os.pipe()
        config = {"path": [JAIL_PACKAGE, *_site_paths()], "results_fd": results_write,
                  "checks": self.checks, "warm": self.warm, "user": _jail_user()}
        host = f"{JAIL_PACKAGE}/routerlab/exercises/engine/jailhost.py"
        try:
            filtered = seccomp.filter_fd()
        except ValueError as error:
            raise JailDied(str(error)) from None
        empty = _empty_fds()
        argv = [found, *_mounts(empty), "--ro-bind", str(self.image.root), JAIL_PACKAGE,
                "--remount-ro", "/", "--as-pid-1", "--seccomp", str(filtered), "--", _python(),
                "-I", "-S", "-B", host, json.dumps(config)]
        cgroup = _Cgroup()
        # RLIMIT_NPROC counts every process of the jail's host user: under a root teacher that
        # is `nobody` in every jail of the class, so one student's fork bomb would starve the
        # others'. The jail's own `pids` cgroup caps it where there is one.
        limits = [(resource.RLIMIT_NOFILE, OPEN_FILES), (resource.RLIMIT_CORE, 0)]
        if not cgroup.caps_processes or config["user"] is None:
            limits.append((resource.RLIMIT_NPROC, JAIL_PROCESSES))

        def prepare() -> None:
            cgroup.enter()
            for which, value in limits:
                with contextlib.suppress(ValueError, OSError):
                    resource.setrlimit(which, (value, value))

        try:
            self.process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=(results_write, filtered, *empty), start_new_session=True,
                preexec_fn=prepare)
        finally:
            os.close(results_write)
            os.close(filtered)
            _close(empty)
        self.cgroup, self._results = cgroup, results_read
        self.started += 1
        for stream in (self.process.stdout, self.process.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)
        os.set_blocking(results_read, False)
        said = bytearray()  # before any student code runs: bubblewrap's or the host's words
        ready = self._control(time.monotonic() + STARTUP_LIMIT, said, [0])
        if ready is None or not ready.get("ready"):
            self._read_output(said, [0])
            self.close()
            why = said.decode(errors="replace").strip().splitlines()[-1:]
            raise JailDied("the grading jail did not start" + (f": {why[0]}" if why else ""))

    def _control(self, deadline: float, output: bytearray, counted: list[int],
                 results: bytearray | None = None, over: list[bool] | None = None
                 ) -> dict[str, Any] | None:
        """The next control line (None: the jail died or the deadline passed); printed output
        read meanwhile is kept in `output` (its end) and counted; with `results`, the fork's
        result lines are read into it as they come (`over[0]`: more than the cap came).

        The results pipe is read as soon as it can be: a fork whose results outgrow the pipe's
        buffer (a build check's observations are 70-190 kB) waits on every write until they are
        read, and reading them only between waits made each such exercise 0.2-0.3 s slower."""
        assert self.process is not None and self.process.stdout and self.process.stderr
        control = self.process.stdout.fileno()
        errors = self.process.stderr.fileno()
        line = bytearray()
        with selectors.DefaultSelector() as selector:
            selector.register(control, selectors.EVENT_READ, "control")
            selector.register(errors, selectors.EVENT_READ, "output")
            if results is not None and over is not None:
                selector.register(self._results, selectors.EVENT_READ, "results")
            while time.monotonic() < deadline:
                for key, _ in selector.select(timeout=min(0.25, deadline - time.monotonic())):
                    if key.data == "results":
                        assert results is not None and over is not None
                        if self._drain(results, over):
                            selector.unregister(key.fd)  # the jail is gone: nothing more comes
                        continue
                    try:
                        chunk = os.read(key.fd, 65536)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        if key.data == "control":
                            return None
                        selector.unregister(key.fd)
                        continue
                    if key.data == "output":
                        self._keep(chunk, output, counted)
                        continue
                    line += chunk
                    if b"\n" in line or len(line) > 4096:
                        text = bytes(line).split(b"\n")[0]
                        try:
                            value = json.loads(text)
                        except ValueError:
                            return None
                        return value if isinstance(value, dict) else None
        return None

    def run(self, exercise: Exercise, source: str, display: str, timeout: float
            ) -> dict[str, Any]:
        """Grade `source` for `exercise` in a fork of the warm host; the sandbox's reply shape."""
        started = time.monotonic()
        for attempt in range(START_ATTEMPTS):
            try:
                if self.process is None or self.process.poll() is not None:
                    self._start()
                break
            except JailDied as error:
                if attempt + 1 == START_ATTEMPTS:
                    self.broken = error
                    return _failed(str(error), started)
        assert self.process is not None and self.process.stdin is not None
        request = {"exercise": exercise.id, "checks": exercise.checks, "source": source,
                   "file_name": exercise.file_name, "display": display,
                   "params": exercise.variant_params(),
                   "restores": self.image.restores(exercise.delegation),
                   "cpu": int(timeout) + 2, "memory": self.limits.memory,
                   "fsize": self.limits.fsize}
        payload = json.dumps(request).encode()
        header = json.dumps({"exercise": exercise.id, "bytes": len(payload)}).encode() + b"\n"
        output, counted = bytearray(), [0]
        results = bytearray()
        self._read_output(bytearray(), [0])  # nothing before this request is this exercise's
        self._drain(bytearray(), [False])
        try:
            self.process.stdin.write(header + payload)
            self.process.stdin.flush()
        except OSError:
            self.close()
            self.broken = JailDied("the grading jail ended before the exercise started")
            return _failed(str(self.broken), started)
        # The student's time limit counts from the fork's first result line (it has read its
        # payload and put the model's functions back); that start gets STARTUP_LIMIT.
        deadline = time.monotonic() + STARTUP_LIMIT
        timing = False
        done = None
        over = [False]
        while done is None and time.monotonic() < deadline:
            done = self._control(min(deadline, time.monotonic() + 0.2), output, counted,
                                 results, over)
            if not timing and results:
                timing, deadline = True, time.monotonic() + timeout + 1.0
            if done is None and self.process.poll() is not None:
                break
        self._drain(results, over)
        truncated = over[0]
        timed_out = done is None
        if not timed_out:
            # Every process that could print was dead before the control line was written, so
            # what they printed is in the pipe now: read it all here, or it would be recorded
            # under the next exercise.
            self._read_output(output, counted)
        left = done.get("left") if isinstance(done, dict) else None
        if timed_out or left:
            self.close()  # the whole jail: the fork, everything it started, the warm host
        status = done.get("status") if isinstance(done, dict) else None
        code = os.waitstatus_to_exitcode(status) if isinstance(status, int) else None
        return {"returncode": None if timed_out else code, "timed_out": timed_out,
                "result": results.decode("utf-8", errors="replace"),
                "result_truncated": truncated,
                "output": output.decode("utf-8", errors="replace"), "output_bytes": counted[0],
                "stragglers": 0, "seconds": time.monotonic() - started, "jail": True,
                "scratch_left": left if isinstance(left, int) else 0}

    def _read_output(self, into: bytearray, counted: list[int]) -> None:
        """What is in the printed-output pipe now (its end kept in `into`, all of it counted)."""
        assert self.process is not None and self.process.stderr is not None
        while True:
            try:
                chunk = os.read(self.process.stderr.fileno(), 65536)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self._keep(chunk, into, counted)

    def _keep(self, chunk: bytes, into: bytearray, counted: list[int]) -> None:
        """Printed output: counted in full, its end kept (`Limits.output_bytes`)."""
        counted[0] += len(chunk)
        into += chunk
        del into[:-self.limits.output_bytes]

    def _drain(self, into: bytearray, over: list[bool]) -> bool:
        """Read what the fork wrote on the results pipe into `into`, up to the cap (`over[0]`:
        more came); True when the pipe is closed or unreadable."""
        while True:
            try:
                chunk = os.read(self._results, 65536)
            except BlockingIOError:
                return False
            except OSError:
                return True
            if not chunk:
                return True
            room = self.limits.result_bytes - len(into)
            into += chunk[:max(room, 0)]
            over[0] |= len(chunk) > room

    def close(self) -> None:
        """Kill the jail (if it runs) and wait until no process of it is left."""
        process, self.process = self.process, None
        if process is not None:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                process.wait(timeout=10)
            for stream in (process.stdin, process.stdout, process.stderr):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
        if self._results >= 0:
            with contextlib.suppress(OSError):
                os.close(self._results)
            self._results = -1
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None


def _failed(why: str, started: float) -> dict[str, Any]:
    return {"returncode": None, "timed_out": False, "result": "", "result_truncated": False,
            "output": "", "output_bytes": 0, "supervisor": why,
            "seconds": time.monotonic() - started, "jail": True}
