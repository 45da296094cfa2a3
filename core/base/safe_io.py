"""Reading what a user hands RouterLab (files, JSON, TOML, integers) so that no input ends in a
traceback or an unbounded read.

Python's own readers fail in ways a user should never see: `read_text` blocks forever on a FIFO
and reads `/dev/zero` until memory runs out, a non-UTF-8 byte raises `UnicodeDecodeError`,
`json`/`tomllib` raise `RecursionError` on deep nesting and a raw `ValueError` past `int()`'s
4300-digit limit, and a huge JSON integer overflows `float()`. Every function here turns each of
those into one readable line, an `error` (a `RouterLabError` class the caller picks, so a
scenario file still raises `ScenarioError`); the limits are in `routerlab.core.base.limits`.
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any

from .errors import InputError, RouterLabError
from .limits import MAX_INT_BITS, MAX_NESTING, MAX_USER_FILE_BYTES, human_bytes

ErrorType = type[RouterLabError]

_INT_LOW, _INT_HIGH = -(1 << (MAX_INT_BITS - 1)), (1 << MAX_INT_BITS) - 1
_INT_TEXT = re.compile(r"[+-]?[0-9]+")


def read_bytes(path: str | os.PathLike[str], *, what: str = "file",
               limit: int = MAX_USER_FILE_BYTES, error: ErrorType = InputError) -> bytes:
    """The bytes of a regular file of at most `limit` bytes.

    The file is opened without blocking and checked on the open descriptor (no race with a
    swap of the path), so a FIFO, a device such as /dev/zero or a folder is refused at once."""
    name = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags)
    except OSError as problem:
        raise error(f"{name}: cannot read {what}: {problem.strerror or problem}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise error(f"{name}: not a regular file (a folder, FIFO or device); a {what} "
                        "must be a plain file")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as problem:
        raise error(f"{name}: cannot read {what}: {problem.strerror or problem}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise error(f"{name}: {what} larger than {human_bytes(limit)}, the limit for a {what}")
    return b"".join(chunks)


def decode_utf8(data: bytes, source: str, error: ErrorType = InputError) -> str:
    """`data` as UTF-8 text, or one line naming the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as problem:
        bad = data[problem.start]
        raise error(f"{source}: not UTF-8 text (byte 0x{bad:02x} at offset {problem.start}); "
                    "save the file as UTF-8") from None


def read_text(path: str | os.PathLike[str], *, what: str = "file",
              limit: int = MAX_USER_FILE_BYTES, error: ErrorType = InputError) -> str:
    """A regular file of at most `limit` bytes, as UTF-8 text."""
    return decode_utf8(read_bytes(path, what=what, limit=limit, error=error), os.fspath(path),
                       error)


def parse_json(text: str | bytes, what: str, error: ErrorType = InputError) -> Any:
    """JSON text as Python values, every integer within 64 bits and nesting within
    `MAX_NESTING`; the message of a syntax error keeps json's own words and position."""
    def small_int(digits: str) -> int:  # json's own int() would meet the 4300-digit limit
        if len(digits) > 21:  # no 64-bit integer has more (sign included)
            raise error(_too_big(what, f"{len(digits.lstrip('-'))} digits"))
        value = int(digits)
        if not _INT_LOW <= value <= _INT_HIGH:
            raise error(_too_big(what, f"{value.bit_length()} bits"))
        return value
    try:
        value = json.loads(text, parse_int=small_int)
    except json.JSONDecodeError as problem:
        raise error(f"{what} is not JSON: {problem.msg} (at character {problem.pos})") from None
    except UnicodeDecodeError as problem:  # bytes given
        raise error(f"{what} is not UTF-8 text (at byte {problem.start})") from None
    except RecursionError:
        raise error(_too_deep(what)) from None
    check_tree(value, what, error)
    return value


def load_json(path: str | os.PathLike[str], *, what: str = "JSON file",
              limit: int = MAX_USER_FILE_BYTES, error: ErrorType = InputError) -> Any:
    """A JSON file, read with `read_text` and parsed with `parse_json`."""
    name = os.fspath(path)
    return parse_json(read_text(path, what=what, limit=limit, error=error), name, error)


def parse_toml(text: str, what: str, error: ErrorType = InputError) -> dict[str, Any]:
    """TOML text as a dict, with the same integer and nesting limits as `parse_json`."""
    import tomllib  # here, not at the top: a command that reads only JSON starts 2 ms sooner

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        raise error(f"{what}: not valid TOML: {problem}") from None
    except RecursionError:
        raise error(_too_deep(what)) from None
    except ValueError as problem:  # int()'s digit limit, or a date tomllib matched but not made
        reason = ("an integer with more than 4300 digits"
                  if "integer string conversion" in str(problem) else str(problem))
        raise error(f"{what}: not valid TOML: {reason}") from None
    check_tree(document, what, error)
    return document


def load_toml(path: str | os.PathLike[str], *, what: str = "TOML file",
              limit: int = MAX_USER_FILE_BYTES, error: ErrorType = InputError) -> dict[str, Any]:
    """A TOML file, read with `read_text` and parsed with `parse_toml`."""
    name = os.fspath(path)
    return parse_toml(read_text(path, what=what, limit=limit, error=error), name, error)


def parse_int(text: str, what: str, *, low: int = _INT_LOW, high: int = _INT_HIGH,
              error: ErrorType = InputError) -> int:
    """A decimal integer between `low` and `high`; its length is checked before `int()` runs,
    so a 5000-digit string is refused by this line, not by Python's digit limit."""
    digits = text.strip()
    if not _INT_TEXT.fullmatch(digits):
        raise error(f"{what}: {shorten(text)!r} is not an integer")
    if len(digits.lstrip("+-").lstrip("0")) > max(len(str(low)), len(str(high))):
        raise error(f"{what}: {shorten(text)!r} has {len(digits)} digits; the limit is "
                    f"{low:,}..{high:,}")
    value = int(digits)
    if not low <= value <= high:
        raise error(f"{what}: {value:,} is out of range {low:,}..{high:,}")
    return value


def check_tree(value: Any, what: str, error: ErrorType = InputError) -> None:
    """Walk a parsed document without recursion: refuse nesting deeper than `MAX_NESTING` and
    integers beyond 64 bits (TOML's hex or octal ones escape `int()`'s digit limit)."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_NESTING:
                raise error(_too_deep(what))
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
        elif isinstance(item, int) and not isinstance(item, bool) and \
                not _INT_LOW <= item <= _INT_HIGH:
            raise error(_too_big(what, f"{item.bit_length()} bits"))


def _too_big(what: str, size: str) -> str:
    return (f"{what}: an integer of {size}; integers must fit in {MAX_INT_BITS} bits (write a "
            "large number as a float, e.g. 1e30)")


def _too_deep(what: str) -> str:
    return f"{what}: nested deeper than {MAX_NESTING} levels, the limit"


def shorten(text: str, room: int = 40) -> str:
    """The start of a long user string, for a message that stays short."""
    return text if len(text) <= room else text[:room] + "…"

