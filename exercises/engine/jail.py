"""Grading in an OS jail (bubblewrap): one jail per student, one fork per exercise.

`Jail` starts `bwrap` with:

- unshared user, pid, network, IPC, UTS and cgroup namespaces (`--unshare-all`), `--as-pid-1`
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
from .jail_image import Image, package_root

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
    """Why no jail can run here (None when one can): bubblewrap missing, or present but refused
    by the kernel (user namespaces disabled, a container that forbids them)."""
    found = bwrap()
    if found is None:
        return f"bubblewrap is not installed (install it: `{INSTALL}`)"
    try:
        filtered = seccomp.filter_fd()
    except ValueError as error:  # an architecture the filter has no numbers for
        return f"bubblewrap cannot run a jail here: {error}"
    try:
        done = subprocess.run([found, *_mounts(), "--seccomp", str(filtered), "--", _python(),
                               "-I", "-S", "-c", "pass"],
                              capture_output=True, timeout=60, check=False, pass_fds=(filtered,))
    finally:
        os.close(filtered)
    if done.returncode:
        why = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no reason"]
        return f"bubblewrap cannot run a jail here: {why[0]}"
    return None


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
    those: never the working directory, a checkout, or a folder that holds RouterLab's own
    package (its catalog must stay out)."""
    prefix = Path(sys.base_prefix).resolve()
    own = package_root()
    out: list[Path] = []
    for entry in sys.path:
        if not entry:
            continue
        path = Path(entry).resolve()
        if path.name not in ("site-packages", "dist-packages") or not path.is_dir() \
                or path.is_relative_to(prefix) or own.is_relative_to(path) or path in out:
            continue
        out.append(path)
    return out


def _mounts() -> list[str]:
    args = ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
            "--setenv", "PYTHONIOENCODING", "utf-8", "--setenv", "HOME", "/tmp",
            "--setenv", "OPENBLAS_NUM_THREADS", "1", "--setenv", "OMP_NUM_THREADS", "1",
            "--setenv", "MKL_NUM_THREADS", "1", "--setenv", "ROUTERLAB_NO_NUMBA", "1",
            "--hostname", "jail"]
    if _disables_userns():
        args += ["--unshare-user", "--disable-userns"]
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
    if not prefix.startswith("/usr/"):
        args += ["--ro-bind", prefix, prefix]
    for index, folder in enumerate(_site_folders()):
        target = f"{JAIL_ROOT}/site{index}"
        args += ["--ro-bind", str(folder), target]
        if (folder / "routerlab").exists():  # an installed RouterLab: its catalog stays out
            args += ["--tmpfs", f"{target}/routerlab"]
    args += ["--proc", "/proc"]
    for node in DEVICES:  # and no /dev/shm: the root, /dev included, is remounted read-only
        args += ["--dev-bind", node, node]
    args += ["--size", str(SCRATCH_BYTES), "--tmpfs", "/tmp", "--chdir", "/tmp"]
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
    """One student's jail: started on first use, restarted after a time-out or a death."""

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

    def __enter__(self) -> Jail:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> None:
        found = bwrap()
        if found is None:
            raise JailDied(f"bubblewrap is not installed (`{INSTALL}`)")
        results_read, results_write = os.pipe()
        config = {"path": [f"{JAIL_ROOT}/pkg", *_site_paths()], "results_fd": results_write,
                  "checks": self.checks, "warm": self.warm}
        host = f"{JAIL_ROOT}/pkg/routerlab/exercises/engine/jailhost.py"
        try:
            filtered = seccomp.filter_fd()
        except ValueError as error:
            raise JailDied(str(error)) from None
        argv = [found, *_mounts(), "--ro-bind", str(self.image.root), f"{JAIL_ROOT}/pkg",
                "--remount-ro", "/", "--as-pid-1", "--seccomp", str(filtered), "--", _python(),
                "-I", "-S", "-B", host, json.dumps(config)]
        cgroup = _Cgroup()

        def prepare() -> None:
            cgroup.enter()
            for which, value in ((resource.RLIMIT_NOFILE, OPEN_FILES),
                                 (resource.RLIMIT_NPROC, JAIL_PROCESSES),
                                 (resource.RLIMIT_CORE, 0)):
                with contextlib.suppress(ValueError, OSError):
                    resource.setrlimit(which, (value, value))

        try:
            self.process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=(results_write, filtered), start_new_session=True,
                preexec_fn=prepare)
        finally:
            os.close(results_write)
            os.close(filtered)
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

    def _control(self, deadline: float, output: bytearray, counted: list[int]
                 ) -> dict[str, Any] | None:
        """The next control line (None: the jail died or the deadline passed); printed output
        read meanwhile is kept in `output` (its end) and counted."""
        assert self.process is not None and self.process.stdout and self.process.stderr
        control = self.process.stdout.fileno()
        errors = self.process.stderr.fileno()
        line = bytearray()
        with selectors.DefaultSelector() as selector:
            selector.register(control, selectors.EVENT_READ, "control")
            selector.register(errors, selectors.EVENT_READ, "output")
            while time.monotonic() < deadline:
                for key, _ in selector.select(timeout=min(0.25, deadline - time.monotonic())):
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
        self._drain(bytearray())
        try:
            self.process.stdin.write(header + payload)
            self.process.stdin.flush()
        except OSError:
            self.close()
            return _failed("the grading jail ended before the exercise started", started)
        # The student's time limit counts from the fork's first result line (it has read its
        # payload and put the model's functions back); that start gets STARTUP_LIMIT.
        deadline = time.monotonic() + STARTUP_LIMIT
        timing = False
        done = None
        truncated = False
        while done is None and time.monotonic() < deadline:
            done = self._control(min(deadline, time.monotonic() + 0.2), output, counted)
            truncated |= self._drain(results)
            if not timing and results:
                timing, deadline = True, time.monotonic() + timeout + 1.0
            if done is None and self.process.poll() is not None:
                break
        truncated |= self._drain(results)
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

    def _drain(self, into: bytearray) -> bool:
        """Read what the fork wrote on the results pipe; True when more than the cap came."""
        over = False
        while True:
            try:
                chunk = os.read(self._results, 65536)
            except (BlockingIOError, OSError):
                return over
            if not chunk:
                return over
            room = self.limits.result_bytes - len(into)
            into += chunk[:max(room, 0)]
            over |= len(chunk) > room

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
