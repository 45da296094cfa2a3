"""Each student's variant of a course: made from the course secret, handed out in the bundle.

The variant of (student, exercise) is `VariantSpec.pick(seed(secret, student id, exercise id))`
(`routerlab.exercises.variants`): the teacher can always make it again, from the secret and the
id alone, and grades against it (`class_variants`). A student's machine has no secret, so a
release made with a roster carries each roster student's parameters in `variants.json`, keyed
by a digest of the course and the student's id (`student_tag`), never by the id itself. Those are
the *inputs* a student's statement shows, never an answer: the truth of any variant is computed
from the model when the teacher grades. A class workspace reads its own entry
(`apply_table`); a student whose id is not in the table is told so.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.base.safe_io import load_json
from ..errors import WorkspaceError
from .spec import Params, seed

if TYPE_CHECKING:
    from ..catalog import Catalog, Exercise

VARIANTS_FILE = "variants.json"
VARIANTS_FORMAT = "routerlab-variants"


def student_tag(course_id: str, student_id: str) -> str:
    """Where a student's entry is filed in `variants.json`: their id does not appear in it."""
    data = b"\0".join([b"routerlab-student-v1", course_id.encode(), student_id.encode()])
    return hashlib.sha256(data).hexdigest()[:32]


def class_variants(catalog: Catalog, key: bytes, student_id: str) -> dict[str, Params]:
    """One student's variant of every exercise that varies (the others have one)."""
    return {e.id: e.variant.pick(seed(key, student_id, e.id)) for e in catalog
            if e.variant.varies}


def write_table(folder: Path, catalog: Catalog, course_id: str, key: bytes,
                student_ids: Iterable[str]) -> int:
    """`variants.json` of a release: each roster student's parameters; how many students."""
    students = {student_tag(course_id, sid): class_variants(catalog, key, sid)
                for sid in sorted(set(student_ids))}
    document = {"format": VARIANTS_FORMAT, "course": course_id, "students": students}
    (folder / VARIANTS_FILE).write_text(json.dumps(document, sort_keys=True, indent=0) + "\n",
                                        encoding="utf-8")
    return len(students)


def apply_table(catalog: Catalog, course_dir: Path, course_id: str, student_id: str) -> Catalog:
    """A class workspace's catalog as its student sees it: each exercise as their variant
    (a bundle without `variants.json`: the catalog's own variants, for everyone)."""
    path = course_dir / VARIANTS_FILE
    if not path.is_file():
        return catalog
    data = load_json(path, what="variants file", error=WorkspaceError)
    students = data.get("students") if isinstance(data, dict) else None
    if not isinstance(students, dict):
        raise WorkspaceError(f"{path} is malformed (no 'students' object)")
    entry = students.get(student_tag(course_id, student_id))
    if not isinstance(entry, dict):
        raise WorkspaceError(f"the student id {student_id!r} is not on the roster the course "
                             f"{course_id!r} was released for; check the id, or ask your teacher "
                             "to release it again with you on the roster")
    return catalog.with_params({e.id: _valid(e, entry.get(e.id), path) for e in catalog
                                if e.variant.varies})


def _valid(exercise: Exercise, params: Any, path: Path) -> Params:
    """A variant read from a bundle: every declared parameter, each one of its values."""
    spec = exercise.variant
    if not isinstance(params, dict) or set(params) != {p.name for p in spec.params} or any(
            params[p.name] not in p.choices for p in spec.params):
        raise WorkspaceError(f"{path}: the variant of {exercise.id} is not one it declares")
    return dict(params)


def random_variants(exercise: Exercise, count: int) -> list[Params]:
    """`count` random variants (lint's): fresh seeds each run, the catalog's own always first."""
    spec = exercise.variant
    picked = [spec.defaults()] + [spec.pick(os.urandom(32)) for _ in range(max(0, count - 1))]
    return picked[:count] if spec.varies else picked[:1]
