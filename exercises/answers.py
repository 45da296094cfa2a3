"""Answers of predict exercises, kept out of the shipped catalog.

A predict exercise ships, per answer part, only a salted SHA-256 digest of the canonical form of
the right answer, and its worked solution encrypted (AES-256-GCM, from the audited
`cryptography` package: never a cipher of our own) with a key derived (differently) from all the
right answers. A check compares digests; a pass stores the key in the student's state, which is
what later opens the solution. Reading the catalog therefore reveals neither the answers nor the
worked solution. (Answers with few possible values can still be found by trying them all: the
digests stop casual peeking, not a determined attacker. The model itself can always be run.)
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
from collections.abc import Mapping
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

_ANSWER_SALT = b"routerlab-answer-v1"
_UNLOCK_SALT = b"routerlab-unlock-v1"
_SEAL_SALT = b"routerlab-seal-v2"
_FORMAT = "rl-aead1:"
"""The prefix of a sealed blob: AES-256-GCM, nonce first (the old cipher's blobs had none)."""
_NONCE_BYTES = 12


class SealFormatError(ValueError):
    """A sealed blob of a format this RouterLab does not read (the old home-made cipher's)."""


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
    """Encrypt `text` under `key` with AES-256-GCM (the `cryptography` package's AEAD): the tag
    detects a wrong key or a changed byte, and a fresh random nonce per seal means the same
    solution sealed twice never gives the same bytes."""
    nonce = os.urandom(_NONCE_BYTES)
    sealed = AESGCM(_aead_key(key)).encrypt(nonce, text.encode("utf-8"), _FORMAT.encode())
    return _FORMAT + base64.b64encode(nonce + sealed).decode("ascii")


def unseal(blob: str, key: str) -> str:
    """Decrypt what `seal` made. `SealFormatError` for a blob of the old home-made cipher (no
    `rl-aead1:` prefix), which is no longer read; ValueError if `key` does not open it."""
    if not blob.startswith(_FORMAT):
        raise SealFormatError("this sealed solution is in the format of an older RouterLab, which "
                              "is no longer read: re-release the course (`routerlab teacher "
                              "seal` each exercise again)")
    try:
        raw = base64.b64decode(blob[len(_FORMAT):].encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise ValueError("the sealed solution is damaged (not base64)") from None
    nonce, sealed = raw[:_NONCE_BYTES], raw[_NONCE_BYTES:]
    try:
        plain = AESGCM(_aead_key(key)).decrypt(nonce, sealed, _FORMAT.encode())
    except (InvalidTag, ValueError):  # a wrong key, a changed byte, a cut blob
        raise ValueError("this key does not open the sealed solution") from None
    return plain.decode("utf-8")


def _aead_key(key: str) -> bytes:
    """A 256-bit AES key from a seal key (a hex digest of right answers or results): HKDF
    binds it to this use, so the same text never keys two things."""
    return HKDF(hashes.SHA256(), 32, salt=_SEAL_SALT, info=_FORMAT.encode()).derive(key.encode())


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
