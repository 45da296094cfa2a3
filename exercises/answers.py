"""Answers of predict exercises, kept out of the shipped catalog.

A predict exercise ships, per answer part, only a salted SHA-256 digest of the canonical form of
the right answer, and its worked solution encrypted with a key derived (differently) from all the
right answers. A check compares digests; a pass stores the key in the student's state, which is
what later opens the solution. Reading the catalog therefore reveals neither the answers nor the
worked solution. (Answers with few possible values can still be found by trying them all: the
digests stop casual peeking, not a determined attacker. The model itself can always be run.)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
from collections.abc import Mapping
from typing import Any

_ANSWER_SALT = b"routerlab-answer-v1"
_UNLOCK_SALT = b"routerlab-unlock-v1"


def canonical(value: Any, places: int = 6, sig: int | None = None) -> str:
    """One text per answer, whatever container or number type the student wrote it with.

    Tuples become lists, sets become sorted lists, numpy scalars become Python numbers and floats
    are rounded to `places` decimals (so `0.8` and `0.80000001` are the same answer), or to `sig`
    significant digits when given (the form a check's model results are sealed in: stable across
    platforms whose last float bits differ, fine enough to notice a changed result).
    """
    return json.dumps(_normalise(value, places, sig), sort_keys=True, separators=(",", ":"))


def answer_digest(exercise_id: str, part: str, canonical_text: str) -> str:
    data = b"\0".join([_ANSWER_SALT, exercise_id.encode(), part.encode(), canonical_text.encode()])
    return hashlib.sha256(data).hexdigest()


def unlock_key(exercise_id: str, canonical_answers: Mapping[str, str]) -> str:
    """The key that opens the sealed solution: only the right answers give it."""
    parts = [f"{name}={canonical_answers[name]}" for name in sorted(canonical_answers)]
    data = b"\0".join([_UNLOCK_SALT, exercise_id.encode(), *(p.encode() for p in parts)])
    return hashlib.sha256(data).hexdigest()


def seal(text: str, key: str) -> str:
    """Encrypt with a SHA-256 counter keystream, plus a tag that detects a wrong key."""
    plain = text.encode("utf-8")
    cipher = bytes(a ^ b for a, b in zip(plain, _keystream(key, len(plain)), strict=True))
    tag = hmac.new(key.encode(), cipher, hashlib.sha256).digest()[:16]
    return base64.b64encode(tag + cipher).decode("ascii")


def unseal(blob: str, key: str) -> str:
    """Decrypt what `seal` made; ValueError if the key is not the one it was sealed with."""
    raw = base64.b64decode(blob.encode("ascii"))
    tag, cipher = raw[:16], raw[16:]
    if not hmac.compare_digest(tag, hmac.new(key.encode(), cipher, hashlib.sha256).digest()[:16]):
        raise ValueError("this key does not open the sealed solution")
    return bytes(a ^ b for a, b in zip(cipher, _keystream(key, len(cipher)), strict=True)).decode()


def _keystream(key: str, length: int) -> bytes:
    blocks = (hashlib.sha256(f"{key}:{i}".encode()).digest() for i in range(math.ceil(length / 32)))
    return b"".join(blocks)[:length]


def _normalise(value: Any, places: int, sig: int | None = None) -> Any:
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()  # numpy scalar
    if hasattr(value, "tolist") and callable(value.tolist):
        value = value.tolist()  # numpy array
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float) and sig is not None:
        return float(f"{value:.{sig}g}") if math.isfinite(value) else str(value)
    if isinstance(value, float):
        rounded = round(value, places)
        return int(rounded) if rounded.is_integer() else rounded
    if isinstance(value, Mapping):
        return {str(k): _normalise(v, places, sig) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted((_normalise(v, places, sig) for v in value), key=repr)
    if isinstance(value, list | tuple):
        return [_normalise(v, places, sig) for v in value]
    return str(value)
