"""What one Dask task carries and does, without a cluster: a submission packed as data, never a
path outside the worker's scratch folder, and the same result as grading the folder here."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from routerlab.exercises.engine.jail import unavailable
from routerlab.exercises.errors import GradesError
from routerlab.exercises.learner.workspace import init_workspace
from routerlab.exercises.teacher.classroom import GradeJob, GradeOptions, StudentResult, grade_job
from routerlab.exercises.teacher.dask_executor import DaskExecutor, grade_remote, pack, unpack


def test_pack_takes_the_files_grading_reads_and_no_link(tmp_path: Path) -> None:
    workspace = init_workspace(tmp_path / "ada", "ada")[0]
    (workspace.root / "notebooks").mkdir(exist_ok=True)
    (workspace.root / "notebooks" / "big.ipynb").write_text("{}")
    os.symlink("/etc/passwd", workspace.exercise_dir / "stolen.py")
    files = pack(workspace.root)
    assert "routerlab-exercises.toml" in files and "exercises/quant_3.py" in files
    assert not any(name.startswith("notebooks/") for name in files)
    assert "exercises/stolen.py" not in files


@pytest.mark.parametrize("name", ["../escape.py", "/etc/x", "a/../../b", "a\\..\\b", "a//b"])
def test_unpack_refuses_a_name_that_leaves_the_folder(tmp_path: Path, name: str) -> None:
    with pytest.raises(GradesError, match="refused a file name"):
        unpack({name: "eA=="}, tmp_path / "in")
    assert not any(tmp_path.rglob("*.py"))


@pytest.mark.slow
def test_a_task_grades_as_the_folder_graded_here(tmp_path: Path) -> None:
    workspace = init_workspace(tmp_path / "ada", "ada")[0]
    options = GradeOptions(isolation=unavailable() is None)  # the same on both sides
    job = GradeJob("ada", str(workspace.root), None, options)
    remote = StudentResult.from_json(json.loads(grade_remote(json.dumps(
        {"job": job.to_json(), "files": pack(workspace.root)}))))
    here = grade_job(job)
    assert remote.submission == str(workspace.root), "the teacher's path, not the worker's"
    assert [(e.id, e.points, e.status, e.file) for e in remote.exercises] == \
        [(e.id, e.points, e.status, e.file) for e in here.exercises]
    assert remote.catalog_version == here.catalog_version and not remote.error


def test_a_scheduler_address_is_checked_before_anything_runs() -> None:
    with pytest.raises(GradesError, match="tcp://HOST:PORT"):
        DaskExecutor("127.0.0.1:8786")
