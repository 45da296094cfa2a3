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
a read entry of the catalog's own variant is held to the exercise's seal again, so a cache
damaged or edited by hand is recomputed, never believed (a variant's answers were never sealed:
they are the model's, as the teacher's own cache keeps them).
"""

from __future__ import annotations

import hashlib
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


@dataclass
class TruthStore:
    """The model's `Expected` per exercise, read from `folder` or computed and written there."""

    folder: Path
    _locks: dict[str, threading.Lock] = field(default_factory=dict, repr=False)
    _guard: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def default(cls) -> TruthStore:
        """The store of this RouterLab's source in the user's cache folder."""
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        return cls(base / "routerlab" / "truths" / source_digest()[:20])

    def expected(self, exercise: Exercise) -> judge.Expected:
        """The model's results for `exercise`: stored ones when they are still the seal's,
        else computed (once, whatever the threads asking) and stored."""
        key = _key(exercise)
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            path = self.folder / f"{key}.json"
            stored = _read(path)
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
        document = {"observations": observations, "answers": expected.answers}
        try:
            text = json.dumps(document, allow_nan=True)
            if json.loads(text) != document:
                return  # JSON would change it (a tuple, a key that is no string): not kept
        except (TypeError, ValueError):
            return
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


def _read(path: Path) -> judge.Expected | None:
    try:
        document: Any = json.loads(path.read_text(encoding="utf-8"))
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
