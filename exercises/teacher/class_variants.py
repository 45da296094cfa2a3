"""Which variants a class is graded on: the course the teacher names, its secret, and each
student's workspace checked against it.

The course comes from the teacher, never from a student's marker: `--course`, else the course a
`--catalog` bundle records, else the default `teacher release` gives (the catalog folder's
name, or `routerlab`). Its secret is read from the teacher's data folder (or `--secret FILE`);
when the course's releases gave variants, each student is graded against
`class_variants(catalog, secret, id)`.

What a student's own files say is that student's business (`ClassCourse.problem`, a row saying
why it is not graded), never the class's: a marker that names another course, a workspace
released with variants while the teacher has no secret for the course, or a bundle copy made
with another secret. A secret that is none of the class's bundles' is the teacher's mistake and
refused before anyone is graded: grading against other variants would fail every right answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.base.safe_io import load_toml
from ..authoring.bundle import COURSE_FILE, check_course_id
from ..authoring.secret import CourseSecret, find_secret, secret_path
from ..catalog import Catalog
from ..errors import CatalogError, GradesError
from ..learner.workspace import MARKER, STATE_DIR
from ..variants.table import class_variants
from .intake import printable
from .truths import truths_key

DEFAULT_COURSE = "routerlab"
"""The course id `teacher release` gives when neither --course nor --catalog names one."""


@dataclass(frozen=True)
class ClassCourse:
    """The course a class is graded as, and its secret (None: a course without variants)."""

    id: str
    secret: CourseSecret | None

    @property
    def variants(self) -> bool:
        return self.secret is not None and self.secret.variants

    def variants_of(self, catalog: Catalog) -> Callable[[str], dict[str, dict[str, Any]]] | None:
        """Each student's variants, for `regrade`; None when the course hands out none."""
        if self.secret is None or not self.secret.variants:
            return None
        key = self.secret.key
        return lambda student_id: class_variants(catalog, key, student_id)

    def problem(self, folder: Path) -> str:
        """Why this student's folder is not graded as this course ("" when it is)."""
        named = _marker(folder).get("course")
        if isinstance(named, str) and named and named != self.id:
            return (f"the workspace belongs to the course {printable(named)!r}, this class is "
                    f"{self.id!r} (the teacher names the course: --course)")
        bundle = _bundle(folder)
        released_with = str(bundle.get("secret_fingerprint", ""))
        if self.secret is None and (bundle.get("variants") is True or released_with):
            return (f"released with variants, but no secret of the course {self.id!r} is found "
                    "on this machine; give it with --secret FILE")
        if self.secret is not None and released_with and released_with != \
                self.secret.fingerprint:
            return (f"released with another secret than the course {self.id!r}'s: this "
                    "workspace's bundle is not the class's")
        return ""

    @property
    def truths_key(self) -> str:
        """The key the truths cache signs this class's variant entries with ("" without a
        secret: no variants to cache)."""
        return truths_key(self.secret.key) if self.secret is not None else ""

    def summary(self) -> str:
        """What a run's summary says about variants, always."""
        if self.variants:
            return f"graded with variants: each student on their own (course {self.id})"
        return f"graded without variants: everyone on the catalog's own (course {self.id})"


def course_id(given: str | None, catalog_dir: Path | None) -> str:
    """The class's course id, from the teacher's options only (see the module docstring),
    validated as student ids are: it names a folder of the teacher's data folder."""
    if given:
        chosen = given
    elif catalog_dir is not None:
        recorded = _toml(Path(catalog_dir) / COURSE_FILE).get("id")
        chosen = recorded if isinstance(recorded, str) and recorded else \
            Path(catalog_dir).expanduser().resolve().name
    else:
        chosen = DEFAULT_COURSE
    try:
        return check_course_id(chosen)
    except CatalogError as error:
        raise GradesError(str(error)) from None


def class_course(folders: Iterable[Path], given: str | None, override: Path | None,
                 catalog_dir: Path | None = None) -> ClassCourse:
    """The course a class is graded as and its secret, checked against the fingerprints the
    class's bundles carry: refused (GradesError) only when the secret is none of theirs."""
    course = course_id(given, catalog_dir)
    if override is None and not secret_path(course).is_file():
        return ClassCourse(course, None)  # no secret: no variants; a student released with
        # them is told so on their row (`ClassCourse.problem`)
    try:
        secret = find_secret(course, override)
    except CatalogError as error:
        raise GradesError(str(error)) from None
    prints = {p for f in folders if (p := str(_bundle(f).get("secret_fingerprint", "")))}
    if prints and secret.fingerprint not in prints:
        raise GradesError(f"{secret.path} is not the secret the course {course!r} was "
                          "released with (its fingerprint is in none of the class's bundles); "
                          "grading with it would grade every student against another variant. "
                          "Give the right one with --secret FILE")
    return ClassCourse(course, secret)


def _marker(folder: Path) -> dict[str, Any]:
    marker = folder / MARKER
    if marker.is_symlink() or not marker.is_file():
        return {}
    return _toml(marker)


def _bundle(folder: Path) -> dict[str, Any]:
    """The workspace's copy of its course bundle's `course.toml` ({} if none)."""
    path = folder / STATE_DIR / "course" / COURSE_FILE
    return {} if path.is_symlink() else _toml(path)


def _toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return load_toml(path, error=GradesError)
    except GradesError:
        return {}  # an unreadable file names no course and vouches for nothing
