"""The grading jail's seccomp filter: the system calls a student's code never needs, refused.

Why: the jail's forks share one kernel with the teacher. Namespaces inside the jail would give a
fork back the capabilities `--cap-drop ALL` took (`unshare(CLONE_NEWUSER)`, then `mount`), and
kernel state that outlives a process would be a channel from one exercise's fork to the next
(keyrings, System V and POSIX message queues, shared memory segments). Some calls are simply
large kernel surfaces no grading needs (io_uring, bpf, perf events, userfaultfd, ptrace).

The filter is classic BPF, assembled here (no libseccomp: the teacher's venv need not import a
system package), for the two architectures RouterLab runs on, and handed to bubblewrap on a file
descriptor (`bwrap --seccomp FD`). It checks the architecture first (a 32-bit entry on a 64-bit
kernel, or x32 numbers on x86_64, would otherwise name other calls), then the call number:

- refused calls return EPERM;
- `clone` returns EPERM when its flags ask for any new namespace; a plain fork or thread passes;
- `clone3` returns ENOSYS: its flags are in memory, where a filter cannot read them, and the C
  library then falls back to `clone` (glibc does so for threads and `posix_spawn`).
"""

from __future__ import annotations

import os
import platform
import struct
import sys

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000
EPERM, ENOSYS = 1, 38
_X32_BIT = 0x40000000

ARCHES = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
"""`uname -m` -> AUDIT_ARCH_* (linux/audit.h)."""

CLONE_NAMESPACES = (0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000
                    | 0x20000000 | 0x40000000)
"""CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (linux/sched.h). CLONE_NEWTIME
(0x80) is left out: in `clone` that bit is part of the exit signal, and `unshare` is refused."""

REFUSED = ("unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree",
           "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
           "io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open",
           "userfaultfd", "keyctl", "add_key", "request_key", "ptrace", "process_vm_readv",
           "process_vm_writev", "kcmp", "kexec_load", "kexec_file_load", "init_module",
           "finit_module", "delete_module", "name_to_handle_at", "open_by_handle_at", "shmget",
           "msgget", "semget", "mq_open")
"""Answered with EPERM. The last four make kernel objects that outlive the fork that made them
in the jail's IPC namespace, which all of one student's forks share."""

NUMBERS = {
    "x86_64": {"unshare": 272, "setns": 308, "clone": 56, "clone3": 435, "mount": 165,
               "umount2": 166, "pivot_root": 155, "chroot": 161, "open_tree": 428,
               "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
               "mount_setattr": 442, "io_uring_setup": 425, "io_uring_enter": 426,
               "io_uring_register": 427, "bpf": 321, "perf_event_open": 298,
               "userfaultfd": 323, "keyctl": 250, "add_key": 248, "request_key": 249,
               "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
               "kexec_load": 246, "kexec_file_load": 320, "init_module": 175,
               "finit_module": 313, "delete_module": 176, "name_to_handle_at": 303,
               "open_by_handle_at": 304, "shmget": 29, "msgget": 68, "semget": 64,
               "mq_open": 240},
    "aarch64": {"unshare": 97, "setns": 268, "clone": 220, "clone3": 435, "mount": 40,
                "umount2": 39, "pivot_root": 41, "chroot": 51, "open_tree": 428,
                "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
                "fspick": 433, "mount_setattr": 442, "io_uring_setup": 425,
                "io_uring_enter": 426, "io_uring_register": 427, "bpf": 280,
                "perf_event_open": 241, "userfaultfd": 282, "keyctl": 219, "add_key": 217,
                "request_key": 218, "ptrace": 117, "process_vm_readv": 270,
                "process_vm_writev": 271, "kcmp": 272, "kexec_load": 104,
                "kexec_file_load": 294, "init_module": 105, "finit_module": 273,
                "delete_module": 106, "name_to_handle_at": 264, "open_by_handle_at": 265,
                "shmget": 194, "msgget": 186, "semget": 190, "mq_open": 180},
}
"""System call numbers (asm/unistd_64.h; asm-generic/unistd.h for aarch64)."""


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(arch: str | None = None) -> bytes:
    """The filter for `arch` (default: this machine's), as `struct sock_filter` records.
    Raises ValueError for an architecture it has no numbers for."""
    arch = arch or platform.machine()
    if arch not in NUMBERS:
        raise ValueError(f"no seccomp filter for the {arch} architecture "
                         f"(known: {', '.join(NUMBERS)})")
    numbers = NUMBERS[arch]
    deny = _op(_RET_K, _RET_ERRNO | EPERM)
    out = [_op(_LD_W_ABS, 4), _op(_JEQ_K, ARCHES[arch], jt=1), _op(_RET_K, _RET_KILL_PROCESS),
           _op(_LD_W_ABS, 0)]
    if arch == "x86_64":  # x32 numbers reach the same kernel with this bit set
        out += [_op(_JGE_K, _X32_BIT, jf=1), deny]
    for name in REFUSED:
        out += [_op(_JEQ_K, numbers[name], jf=1), deny]
    out += [_op(_JEQ_K, numbers["clone3"], jf=1), _op(_RET_K, _RET_ERRNO | ENOSYS)]
    flags = 16 if sys.byteorder == "little" else 20  # the low half of seccomp_data.args[0]
    out += [_op(_JEQ_K, numbers["clone"], jf=3), _op(_LD_W_ABS, flags),
            _op(_JSET_K, CLONE_NAMESPACES, jf=1), deny, _op(_RET_K, _RET_ALLOW)]
    return b"".join(out)


def filter_fd() -> int:
    """A readable descriptor holding the filter, at its start (for `bwrap --seccomp FD`); the
    caller closes it once bubblewrap has started."""
    fd = os.memfd_create("routerlab-seccomp", 0)
    os.write(fd, program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
