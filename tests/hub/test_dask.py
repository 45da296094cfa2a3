"""`teacher recheck --scheduler`: a class graded on a Dask cluster (a scheduler and two workers
on 127.0.0.1) gets exactly the grades of the local run, and still every row when a worker is
killed in the middle of the run."""

from __future__ import annotations

import csv
import importlib.util
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hubtools import free_port
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.exercises.learner.workspace import Workspace, init_workspace
from routerlab.exercises.teacher.classroom import LocalExecutor, StudentResult
from routerlab.exercises.teacher.dask_executor import DaskExecutor
from routerlab.exercises.teacher.regrade import Outputs, plan_class, regrade

pytestmark = [pytest.mark.slow, pytest.mark.alone]  # a Dask cluster

SOLVED = {"ada": ["quant-3", "flow-1"], "bob": ["quant-3"], "cy": []}


class Cluster:
    def __init__(self, folder: Path) -> None:
        dask = Path(sys.executable).parent / "dask"
        self.address = f"tcp://127.0.0.1:{free_port()}"
        port = self.address.rsplit(":", 1)[1]
        common = {"stderr": subprocess.STDOUT, "start_new_session": True}
        self.scheduler = subprocess.Popen(
            [str(dask), "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"],
            stdout=(folder / "scheduler.log").open("wb"), **common)
        self.workers = [subprocess.Popen(
            [str(dask), "worker", self.address, "--host", "127.0.0.1", "--nthreads", "1",
             "--no-dashboard", "--name", f"w{n}", "--local-directory", str(folder / f"w{n}")],
            stdout=(folder / f"worker{n}.log").open("wb"), **common) for n in (1, 2)]

    def wait(self) -> None:
        """Until both workers have joined the scheduler."""
        from distributed import Client

        with Client(self.address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)

    def kill_a_busy_worker(self) -> int:
        """SIGKILL a worker that is grading now, with its nanny (its whole process group);
        how many tasks it held."""
        from distributed import Client

        with Client(self.address, timeout="30s", set_as_default=False) as client:
            names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
            address, held = max(client.processing().items(), key=lambda kv: len(kv[1]))
        worker = self.workers[int(str(names[address]).removeprefix("w")) - 1]
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
        return len(held)

    def stop(self) -> None:
        for process in [*self.workers, self.scheduler]:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        for process in [*self.workers, self.scheduler]:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    if importlib.util.find_spec("distributed") is None:
        pytest.skip("dask and distributed are not installed: pip install 'routerlab[class]'")
    running = Cluster(tmp_path_factory.mktemp("dask"))
    try:
        running.wait()
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def submitted(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    from routerlab.exercises.authoring.sealing import open_solution
    from routerlab.exercises.catalog import load_catalog

    root = tmp_path_factory.mktemp("class")
    folders = []
    for student, solved in SOLVED.items():
        workspace: Workspace = init_workspace(root / student, student)[0]
        for exercise_id in solved:
            exercise = load_catalog().get(exercise_id)
            workspace.file_for(exercise).write_text(open_solution(exercise))
        folders.append(workspace.root)
    return folders


@pytest.fixture(scope="module")
def local(submitted: list[Path], tmp_path_factory: pytest.TempPathFactory
          ) -> tuple[dict[str, dict[str, str]], dict[str, float]]:
    """The local run's CSV rows and points: what the cluster must match."""
    out = tmp_path_factory.mktemp("local") / "local.csv"
    summary = regrade(plan_class(submitted, None), Outputs.beside(out, None), LocalExecutor(2))
    return _rows(out), {sid: r.points for sid, r in summary.results.items()}


def _rows(path: Path) -> dict[str, dict[str, str]]:
    rows = list(csv.reader(path.open()))
    header = next(i for i, r in enumerate(rows) if r and r[0] in ("id", "student", "Student"))
    return {r[0]: dict(zip(rows[header], r, strict=False)) for r in rows[header + 1:] if r}


Local = tuple[dict[str, dict[str, str]], dict[str, float]]


def test_the_cluster_grades_as_the_local_run(cluster: Cluster, submitted: list[Path],
                                             local: Local, tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["teacher", "recheck", *map(str, submitted), "--out",
                                 str(tmp_path / "dask.csv"), "--scheduler", cluster.address])
    assert result.exit_code == 0, result.output
    assert _rows(tmp_path / "dask.csv") == local[0]
    points = local[1]
    assert points["ada"] > points["bob"] > points["cy"] == 0


def test_a_worker_killed_mid_run_loses_no_student(cluster: Cluster, submitted: list[Path],
                                                  local: Local, tmp_path: Path) -> None:
    killed: list[tuple[int, int]] = []

    def progress(done: int, total: int, result: StudentResult | None) -> None:
        if result is not None and not killed:
            killed.append((done, cluster.kill_a_busy_worker()))

    summary = regrade(plan_class(submitted, None), Outputs.beside(tmp_path / "g.csv", None),
                      DaskExecutor(cluster.address), progress=progress)
    assert killed[0][0] == 1 and killed[0][1] >= 1, "killed after the first result, mid-task"
    assert sorted(summary.results) == sorted(SOLVED)
    assert [r.error for r in summary.results.values()] == ["", "", ""]
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    assert len(lines) == 3, "each student's result in the resume file once"
    assert _rows(tmp_path / "g.csv") == local[0]
    assert {s: r.points for s, r in summary.results.items()} == local[1]


def test_a_real_scheduler_passes_the_greeting_check_and_still_serves(cluster: Cluster) -> None:
    """`check_greeting` (a non-Dask port is refused in seconds) lets a real scheduler through,
    and its probe leaves the scheduler serving."""
    from distributed import Client

    from routerlab.exercises.teacher.dask_executor import check_greeting

    check_greeting(cluster.address)
    check_greeting(cluster.address)
    with Client(cluster.address, timeout="30s", set_as_default=False) as client:
        assert client.submit(sum, [1, 2], pure=False).result(timeout=60) == 3
