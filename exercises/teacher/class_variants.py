"""Which variants a class is graded on: its course, its secret, and a check that it is theirs.

`teacher recheck` finds the course from the workspaces' markers (or `--course`), reads the
course's secret from the teacher's data folder (or `--secret FILE`), and, when the course's
releases gave variants, grades each student against `class_variants(catalog, secret, id)`.
A secret that is not the one the class's bundles were released with is refused before anyone is
graded: grading against other variants would fail every right answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ...core.base.safe_io import load_toml
from ..authoring.bundle import COURSE_FILE
from ..authoring.secret import CourseSecret, find_secret, secret_path
from ..catalog import Catalog
from ..errors import CatalogError, GradesError
from ..learner.workspace import MARKER, STATE_DIR
from ..variants.table import class_variants


def course_of(folders: Iterable[Path], given: str | None) -> str | None:
    """The course the class's workspaces belong to (`given`, else their markers' one)."""
    if given:
        return given
    found = {str(c) for f in folders if (c := _marker(f).get("course"))}
    if len(found) > 1:
        raise GradesError(f"the submissions belong to several courses ({', '.join(sorted(found))});"
                          " grade one course at a time, or name it with --course")
    return next(iter(found), None)


def class_secret(folders: list[Path], course: str | None, override: Path | None
                 ) -> CourseSecret | None:
    """The secret a class is graded with, checked against the fingerprint its bundles carry;
    None for a class without a course secret and without variants."""
    course_id = course_of(folders, course)
    if course_id is None:
        if override is not None:
            raise GradesError("--secret needs the course: name it with --course")
        return None
    prints = {p for f in folders if (p := _released_with(f))}
    if override is None and not secret_path(course_id).is_file() and not prints:
        return None  # a course released before secrets existed: no variants to grade
    try:
        secret = find_secret(course_id, override)
    except CatalogError as error:
        raise GradesError(str(error)) from None
    if prints and secret.fingerprint not in prints:
        raise GradesError(f"{secret.path} is not the secret the course {course_id!r} was "
                          "released with (its fingerprint is in none of the class's bundles); "
                          "grading with it would grade every student against another variant. "
                          "Give the right one with --secret FILE")
    return secret


def variants_of(catalog: Catalog, secret: CourseSecret | None
                ) -> Callable[[str], dict[str, dict[str, Any]]] | None:
    """Each student's variants, for `regrade`; None when the course hands out none."""
    if secret is None or not secret.variants:
        return None
    return lambda student_id: class_variants(catalog, secret.key, student_id)


def _marker(folder: Path) -> dict[str, Any]:
    marker = folder / MARKER
    if not marker.is_file():
        return {}
    try:
        return load_toml(marker)
    except Exception:  # noqa: BLE001 - an unreadable marker names no course
        return {}


def _released_with(folder: Path) -> str:
    """The secret fingerprint a workspace's copy of its bundle records ("" if none)."""
    path = folder / STATE_DIR / "course" / COURSE_FILE
    if not path.is_file():
        return ""
    try:
        return str(load_toml(path).get("secret_fingerprint", ""))
    except Exception:  # noqa: BLE001 - a broken copy vouches for nothing
        return ""
