"""Every size RouterLab accepts from a user, in one place, each documented in docs/limits.md.

A limit is a fixed number rather than one computed from the machine, so that the same command
behaves the same everywhere; the one exception is `require_memory`, which compares work that
would surely not fit with the memory this machine has free, so that the work is refused with
a line instead of ending in the kernel's out-of-memory killer. Every refusal names the size
asked for and the limit (`LimitError`).
"""

from __future__ import annotations

import math

from .errors import LimitError, RouterLabError

MAX_ELEMENTS = 1 << 31
"""The most elements a typed, random or computed tensor may have: 2**31, 8 GiB of f32."""

MAX_DIMS = 32
"""The most dimensions a tensor may have. numpy 1.x stops at 32 and numpy 2 at 64
(`NPY_MAXDIMS`); one number for both keeps a scenario portable."""

MAX_NESTING = 64
"""The deepest a JSON or TOML document may nest (lists in tables in lists…). Deeper input ends
Python's parsers in a `RecursionError`; no tensor needs more than `MAX_DIMS` + a few levels."""

MAX_INT_BITS = 64
"""Integers in user text must fit in 64 bits (signed or unsigned); a larger one is refused
before Python's 4300-digit `int()` limit or numpy's object arrays are ever reached."""

MAX_DEVICE_INDEX = (1 << 16) - 1
"""A device index is a `u16` in Burn (`DeviceIdIr::index_id`, crates/burn-ir/src/operation.rs:
1174-1179)."""

MAX_HOPS = 1000
"""The most moves `transfer` and `compare` make (`--hops`); requantize drift shows in a few."""

MAX_SCENARIO_BYTES = 1 << 20
"""A scenario file is hand-written TOML: 1 MiB is far more than any needs."""

MAX_USER_FILE_BYTES = 16 << 20
"""Any other file RouterLab reads (a workspace's JSON state, an exported grade file)."""

PEAK_PAYLOAD_RATIO = {"quantize": 5, "transfer": 10, "compare": 11}
"""Peak memory of each command over its f32 payload, measured (peak RSS less the interpreter's,
4096×4096, q8s): quantize 4.2×, transfer 9.9×, compare 10.5×. A `--random` shape that would
need more than the free memory is refused before it is allocated."""

JSON_OUTPUT_MAX_BYTES = 64 << 20
"""`--json` output larger than this (64 MiB) is refused with a hint (`--summary`, or a smaller
tensor); the one place for the limit, shared by every command's `--json`."""

JSON_BYTES_PER_NUMBER = 12
"""A conservative size of one number in indented `--json` output, to refuse a document that
would surely exceed `JSON_OUTPUT_MAX_BYTES` before building it."""


def human_bytes(size: float) -> str:
    """`67108864` → `64.0 MiB`: a size a reader can compare with a limit."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def check_elements(shape: tuple[int, ...], what: str,
                   error: type[RouterLabError] = LimitError) -> None:
    """Refuse a shape with more than `MAX_DIMS` dims or `MAX_ELEMENTS` elements."""
    if len(shape) > MAX_DIMS:
        raise error(f"{what} has {len(shape)} dimensions; RouterLab takes at most "
                         f"{MAX_DIMS}")
    count = math.prod(shape)
    if count > MAX_ELEMENTS:
        raise error(f"{what} has {count:,} elements; RouterLab takes at most "
                         f"{MAX_ELEMENTS:,} (2**31, 8 GiB of f32)")


MEMORY_CHECK_FROM = 256 << 20
"""Results from this size on are compared with the free memory (reading it costs a file read,
too much for every small op)."""


def check_result(shape: tuple[int, ...], itemsize: int, what: str,
                 error: type[RouterLabError] = LimitError) -> None:
    """Refuse a tensor about to be made: too many dims or elements, or surely more bytes than
    this machine has free. Every op output passes here, so the element count is computed once
    and `check_elements` runs only to word the refusal."""
    count = math.prod(shape)
    if count > MAX_ELEMENTS or len(shape) > MAX_DIMS:
        check_elements(shape, what, error)
    nbytes = count * itemsize
    if nbytes >= MEMORY_CHECK_FROM:
        require_memory(nbytes, f"{what} {list(shape)}")


def check_hops(hops: int) -> None:
    """Refuse a number of moves outside 1..`MAX_HOPS` before the first one is made."""
    if not 1 <= hops <= MAX_HOPS:
        raise LimitError(f"hops must be between 1 and {MAX_HOPS} (--hops), got {hops}")


def check_json_numbers(numbers: int, hint: str) -> None:
    """Refuse `--json` output of `numbers` numbers that would surely pass the limit, before
    the document (a Python list per array, 30+ bytes a number) is built."""
    size = numbers * JSON_BYTES_PER_NUMBER
    if size > JSON_OUTPUT_MAX_BYTES:
        raise LimitError(f"--json output would be about {human_bytes(size)} ({numbers:,} "
                         f"numbers); the limit is {human_bytes(JSON_OUTPUT_MAX_BYTES)}: {hint}")


def available_memory() -> int | None:
    """Bytes this machine can still allocate without swapping (Linux `MemAvailable`), or None
    where that is not known (then only the fixed limits apply)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def require_memory(nbytes: int, what: str) -> None:
    """Refuse work that needs `nbytes` at its peak when this machine has less free: Linux
    overcommits, so such work would not fail with a `MemoryError` but be killed."""
    free = available_memory()
    if free is not None and nbytes > free:
        raise LimitError(f"{what} needs about {human_bytes(nbytes)} of memory; this machine "
                         f"has {human_bytes(free)} available")
