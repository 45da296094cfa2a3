"""The teacher's list of each student's tag (`tags.csv`): what `teacher release --roster` hands
each student for `exercises init --tag`, kept beside the course secret and never in a bundle.

It lives in the authoring room, not with the variants table (`variants.table`, which makes the
tags), because it is filed beside the secret (`authoring.secret`), which the table's bottom
layer may not import.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

from ...core.base.safe_io import read_bytes
from ..errors import CatalogError
from ..variants.table import student_tag
from .secret import secret_path, write_private

TAGS_FILE = "tags.csv"


def tags_path(course_id: str) -> Path:
    """The teacher's list of each student's tag: beside the course secret, never a bundle."""
    return secret_path(course_id).with_name(TAGS_FILE)


def write_tags(course_id: str, key: bytes, student_ids: Iterable[str]) -> Path:
    """`tags.csv` (`id,tag`), readable by the teacher alone: what each student is handed."""
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    writer.writerow(["id", "tag"])
    for sid in sorted(set(student_ids)):
        writer.writerow([sid, student_tag(key, course_id, sid)])
    path = tags_path(course_id)
    write_private(path, rows.getvalue())
    return path


def find_tag(course_id: str, student_id: str) -> str | None:
    """A student's tag from the teacher's `tags.csv` (None without one): for a workspace the
    teacher's own machine makes (the hub's)."""
    path = tags_path(course_id)
    if not path.is_file():
        return None
    try:
        text = read_bytes(path, what="tags file", error=CatalogError).decode("utf-8")
    except (CatalogError, UnicodeDecodeError):
        return None
    return next((row["tag"] for row in csv.DictReader(io.StringIO(text))
                 if row.get("id") == student_id and row.get("tag")), None)
