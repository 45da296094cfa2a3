"""The model's results for each exercise, kept on the teacher's disk once per catalog version.

A regrade compares every student's answers with the model's (`engine.judge.expected`). One
process computes them once, so the first student of every `teacher recheck` paid for all of
them, most of it the served-peer exercises, whose oracles start real peers: about 5 of a first
student's 6 s, where a later student costs 1 to 1.6 s (issue 29). This store keeps them in the
teacher's cache folder (`$XDG_CACHE_HOME/routerlab/truths/`), keyed by all they are computed
from: the exercise's own files and RouterLab's source (the digest the jail image is named by).
A new RouterLab or a resealed exercise is a new key; the `KEEP` sources used last are kept.

Only the teacher's side uses it: a learner's machine never writes the model's answers in the
clear. A class variant is an entry of its own (its parameters are part of the key). An entry is
kept only when JSON gives back exactly what the model gave (else it is computed each time), and
a read entry is checked before it is believed: one of the catalog's own variant against the
exercise's seal, one of a class variant (never sealed) against the HMAC it was written with,
under a key made from the course secret (`truths_key`; the secret itself never leaves the
teacher's process). A cache damaged or edited by hand is recomputed, never believed; a variant
entry read without the key (a run that has none) is recomputed too.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..catalog import Exercise
from ..engine import judge
from ..engine.jail_image import source_digest

KEEP = 4
"""How many RouterLab sources keep their results (as the jail keeps its images)."""
_MAC_TEXT = b"routerlab-truths-cache-v1"


def truths_key(course_secret: bytes) -> str:
    """The key a class's variant entries are signed with: made from the course secret, so a
    job can carry it to a worker without carrying the secret."""
    return hmac.new(course_secret, _MAC_TEXT, hashlib.sha256).hexdigest()


@dataclass
class TruthStore:
    """The model's `Expected` per exercise, read from `folder` or computed and written there."""

    folder: Path
    key: str = ""
    """`truths_key` of the class's course secret ("": variant entries are never believed)."""
    _locks: dict[str, threading.Lock] = field(default_factory=dict, repr=False)
    _guard: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def default(cls, key: str = "") -> TruthStore:
        """The store of this RouterLab's source in the user's cache folder."""
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        return cls(base / "routerlab" / "truths" / source_digest()[:20], key)

    def expected(self, exercise: Exercise) -> judge.Expected:
        """The model's results for `exercise`: stored ones when they are still the seal's,
        else computed (once, whatever the threads asking) and stored."""
        key = _key(exercise)
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            path = self.folder / f"{key}.json"
            stored = _read(path, self.key if exercise.params else None)
            if stored is not None and (exercise.params
                                       or not judge.seal_problems(exercise, stored)):
                return stored
            computed = judge.expected(exercise.id, exercise.catalog, exercise.params)
            if not computed.problems:
                self._write(path, computed)
            return computed

    def _write(self, path: Path, expected: judge.Expected) -> None:
        observations = {name: [[label, value] for label, value in observed]
                        for name, observed in expected.observations.items()}
        document: dict[str, Any] = {"observations": observations, "answers": expected.answers}
        try:
            text = json.dumps(document, allow_nan=True)
            if json.loads(text) != document:
                return  # JSON would change it (a tuple, a key that is no string): not kept
        except (TypeError, ValueError):
            return
        if self.key:
            text = json.dumps({**document, "mac": _mac(self.key, path.stem, document)},
                              allow_nan=True)
        try:
            fresh = not self.folder.exists()
            self.folder.mkdir(parents=True, exist_ok=True)
            if fresh:
                _prune(self.folder.parent, keep=self.folder.name)
            with tempfile.NamedTemporaryFile("w", dir=self.folder, suffix=".tmp",
                                             delete=False, encoding="utf-8") as out:
                out.write(text)
            os.replace(out.name, path)
        except OSError:
            pass  # a cache that cannot be written costs time, never a grade


def _key(exercise: Exercise) -> str:
    """What an exercise's results are computed from, besides RouterLab's source: its files and
    the variant's parameters."""
    digest = hashlib.sha256(exercise.id.encode() + b"\0" + exercise.params.encode() + b"\0")
    folder = Path(str(exercise.folder))
    for name in ("exercise.toml", "sealed.json"):
        path = folder / name
        digest.update(path.read_bytes() if path.is_file() else b"-")
    return digest.hexdigest()[:32]


def _mac(key: str, name: str, document: dict[str, Any]) -> str:
    """The HMAC of one entry (its name, the cache key, included: an entry copied under another
    variant's name does not verify)."""
    body = json.dumps({"observations": document["observations"],
                       "answers": document["answers"]}, sort_keys=True, allow_nan=True)
    return hmac.new(key.encode(), name.encode() + b"\0" + body.encode(),
                    hashlib.sha256).hexdigest()


def _read(path: Path, key: str | None = None) -> judge.Expected | None:
    """An entry, or None; with `key` (a variant's entry), only one whose HMAC verifies."""
    try:
        document: Any = json.loads(path.read_text(encoding="utf-8"))
        if key is not None and not (key and hmac.compare_digest(
                str(document.get("mac", "")), _mac(key, path.stem, document))):
            return None  # not signed with this class's key: computed again
        observations = {str(name): [(str(label), value) for label, value in observed]
                        for name, observed in document["observations"].items()}
        return judge.Expected(observations, dict(document["answers"]), ())
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None


def _prune(root: Path, keep: str) -> None:
    """Keep the results of the `KEEP` sources used last (`keep`, new, among them)."""
    others = sorted((p for p in root.iterdir() if p.is_dir() and p.name != keep),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    for old in others[KEEP - 1:]:
        shutil.rmtree(old, ignore_errors=True)
