"""Each student's variant of a course: made from the course secret, handed out in the bundle.

The variant of (student, exercise) is `VariantSpec.pick(seed(secret, student id, exercise id))`
(`routerlab.exercises.variants.spec`): the teacher can always make it again, from the secret and the
id alone, and grades against it (`class_variants`). A student's machine has no secret, so a
release made with a roster carries each roster student's parameters in `variants.json`, keyed
by their *tag*: an HMAC of the course and the id under the course secret (`student_tag`). Only
the teacher can make a tag; each student is handed their own (`teacher release` writes them to
`tags.csv` beside the secret, `authoring.tags`, readable by the teacher alone) and gives it to
`exercises init --tag`. So the bundle names no student, and a classmate's entry, whose
parameters would give their right answers through the model, cannot be found from their id.
Those are the *inputs* a student's statement shows, never an answer: the truth of any variant is
computed from the model when the teacher grades. A class workspace reads its own entry
(`apply_table`); a student whose tag is not in the table is told so.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
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
_TAG = re.compile(r"[0-9a-f]{20}")


def student_tag(key: bytes, course_id: str, student_id: str) -> str:
    """Where a student's entry is filed in `variants.json`: only the secret's holder can make
    it, and the id does not appear in it."""
    data = b"\0".join([b"routerlab-student-tag-v2", course_id.encode(), student_id.encode()])
    return hmac.new(key, data, hashlib.sha256).hexdigest()[:20]


def check_tag(value: str) -> str:
    """A tag as a student types it (`exercises init --tag`): 20 hex digits."""
    tag = value.strip().lower()
    if not _TAG.fullmatch(tag):
        raise WorkspaceError(f"--tag {value[:40]!r}: a tag is the 20 letters and digits (0-9, "
                             "a-f) your teacher handed you with your id")
    return tag


def class_variants(catalog: Catalog, key: bytes, student_id: str) -> dict[str, Params]:
    """One student's variant of every exercise that varies (the others have one)."""
    return {e.id: e.variant.pick(seed(key, student_id, e.id)) for e in catalog
            if e.variant.varies}


def write_table(folder: Path, catalog: Catalog, course_id: str, key: bytes,
                student_ids: Iterable[str]) -> int:
    """`variants.json` of a release: each roster student's parameters; how many students."""
    students = {student_tag(key, course_id, sid): class_variants(catalog, key, sid)
                for sid in sorted(set(student_ids))}
    document = {"format": VARIANTS_FORMAT, "course": course_id, "students": students}
    (folder / VARIANTS_FILE).write_text(json.dumps(document, sort_keys=True, indent=0) + "\n",
                                        encoding="utf-8")
    return len(students)


def apply_table(catalog: Catalog, course_dir: Path, course_id: str, tag: str | None) -> Catalog:
    """A class workspace's catalog as its student sees it: each exercise as their variant
    (a bundle without `variants.json`: the catalog's own variants, for everyone)."""
    path = course_dir / VARIANTS_FILE
    if not path.is_file():
        return catalog
    data = load_json(path, what="variants file", error=WorkspaceError)
    students = data.get("students") if isinstance(data, dict) else None
    if not isinstance(students, dict):
        raise WorkspaceError(f"{path} is malformed (no 'students' object)")
    if not tag:
        raise WorkspaceError(f"the course {course_id!r} gives each student their own variant: "
                             "give the tag your teacher handed you with your id (`routerlab "
                             "exercises init DIR --course BUNDLE --student-id ID --tag TAG`)")
    entry = students.get(tag)
    if not isinstance(entry, dict):
        raise WorkspaceError(f"the tag {tag!r} is not on the roster the course {course_id!r} "
                             "was released for; check the tag and id your teacher handed you, "
                             "or ask them to release it again with you on the roster")
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
