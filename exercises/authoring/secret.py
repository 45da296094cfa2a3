"""A course's secret: what makes each student's variant, kept on the teacher's machine only.

`teacher release OUT --course C` makes it once, in the teacher's own data folder,
`$XDG_DATA_HOME/routerlab/courses/C/secret.toml` (`~/.local/share/...` when the variable is
unset), readable by the teacher alone, and never inside OUT: a release again of the same course
keeps it, so every student keeps their variant. `teacher recheck`, `release-solutions` and
`lint` find it from the course id; `--secret FILE` points at a copy elsewhere (a second grading
machine).

The file holds the secret (32 random bytes, hex) and whether the course's releases hand out
variants (`variants`: a release with a roster does). A bundle carries only the secret's
*fingerprint* (an HMAC of a fixed text under it): enough to refuse grading with another course's
secret, nothing from which the secret or a variant can be computed.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..errors import CatalogError

SECRET_FILE = "secret.toml"
_FINGERPRINT_TEXT = b"routerlab-course-secret-fingerprint-v1"


@dataclass(frozen=True)
class CourseSecret:
    """One course's secret, as read from its file."""

    course: str
    key: bytes
    variants: bool
    """Whether this course's releases gave each student a variant (a release with a roster)."""
    path: Path

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


def data_home() -> Path:
    """The teacher's own data folder (XDG's): never a course bundle, never a workspace."""
    given = os.environ.get("XDG_DATA_HOME", "")
    base = Path(given) if given and Path(given).is_absolute() else Path.home() / ".local/share"
    return base / "routerlab" / "courses"


def secret_path(course_id: str) -> Path:
    return data_home() / course_id / SECRET_FILE


def fingerprint(key: bytes) -> str:
    """What a bundle records of the secret: it names one secret, and gives nothing of it."""
    return hmac.new(key, _FINGERPRINT_TEXT, hashlib.sha256).hexdigest()[:24]


def ensure_secret(course_id: str, variants: bool, out: Path) -> CourseSecret:
    """The course's secret, made now if it has none (a release again keeps it). `variants`
    records whether this release handed out variants. `out` (the bundle) must not hold it."""
    path = secret_path(course_id)
    if _inside(path, out):
        raise CatalogError(f"the course secret's folder {path.parent} is inside the bundle "
                           f"{out}; set XDG_DATA_HOME to a folder of your own")
    key = read_secret(path, course_id).key if path.is_file() else secrets.token_bytes(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as error:
        raise CatalogError(f"{path.parent}: cannot make the course secret's folder: "
                           f"{error.strerror}") from None
    text = (f'course = "{course_id}"\nsecret = "{key.hex()}"\n'
            f"variants = {'true' if variants else 'false'}\n")
    write_private(path, text)
    return CourseSecret(course_id, key, variants, path)


def find_secret(course_id: str, override: Path | None = None) -> CourseSecret:
    """The secret `teacher recheck` (and the others) grade with: `override`, or the course's."""
    path = override if override is not None else secret_path(course_id)
    if not path.is_file():
        raise CatalogError(f"no secret for the course {course_id!r} at {path}: grade on the "
                           "machine that ran `teacher release`, or give its copy with "
                           "--secret FILE")
    found = read_secret(path, course_id)
    if found.course != course_id:
        raise CatalogError(f"{path} is the secret of the course {found.course!r}, not "
                           f"{course_id!r}")
    return found


def read_secret(path: Path, course_id: str) -> CourseSecret:
    try:
        if path.stat().st_size > 4096:
            raise ValueError("too large for a course secret")
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        key = bytes.fromhex(str(data["secret"]))
        if len(key) < 16:
            raise ValueError("the secret is too short")
        return CourseSecret(str(data.get("course", course_id)), key, bool(data.get("variants")),
                            path)
    except (OSError, KeyError, ValueError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise CatalogError(f"{path} is not a course secret ({error})") from None


def write_private(path: Path, text: str) -> None:
    """Written readable by its owner only from the first byte, then renamed into place."""
    staging = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(staging, path)
    except OSError as error:
        staging.unlink(missing_ok=True)
        raise CatalogError(f"{path}: cannot write the course secret: {error.strerror}") from None


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True
