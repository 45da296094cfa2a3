"""A hostile class, third round (issue 37 §2, §7): a hard link is no submission, and a pip
install grades as a checkout does. Each attack sits next to an honest control whose points must
not move."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import uuid
import venv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import catalog_root, load_catalog
from routerlab.exercises.engine.jail import unavailable
from routerlab.exercises.teacher.intake import Refused, read_file

SECRET = f"HUB_TOKEN_{uuid.uuid4().hex}"
EXERCISES = ("registry-1", "registry-2")
ROOT = Path(__file__).resolve().parents[2]


def _solution(exercise_id: str) -> str:
    return open_solution(load_catalog().get(exercise_id))


def _points(exercise_id: str) -> int:
    return load_catalog().get(exercise_id).points


def test_a_hard_link_is_refused_where_the_file_is_read(tmp_path: Path) -> None:
    teacher = tmp_path / "teacher.txt"
    teacher.write_text(SECRET + "\n")
    mine = tmp_path / "mine"
    mine.mkdir()
    os.link(teacher, mine / "registry_1.py")
    (mine / "own.py").write_text("x = 1\n")
    with pytest.raises(Refused, match="hard link"):
        read_file(mine.resolve(), mine / "registry_1.py")
    assert read_file(mine.resolve(), mine / "own.py") == b"x = 1\n"  # one link: a submission


def test_a_hard_link_to_a_teachers_file_earns_nothing_and_never_reaches_the_feedback(
        tmp_path: Path) -> None:
    course = tmp_path / "course"
    shutil.copytree(Path(str(catalog_root())), course)
    (course / "index.toml").write_text(f"order = {json.dumps(list(EXERCISES))}\n")
    teacher = tmp_path / "teacher" / "hub_token.py"  # one line: a NameError would echo it
    teacher.parent.mkdir()
    teacher.write_text(SECRET + "\n")
    subs = tmp_path / "submitted"
    for sid in ("honest", "linker"):
        (subs / sid).mkdir(parents=True)
    for exercise in EXERCISES:
        name = load_catalog().get(exercise).file_name
        (subs / "honest" / name).write_text(_solution(exercise))
        os.link(teacher, subs / "linker" / name)  # what tarfile's default filter makes
    grades, feedback = tmp_path / "grades" / "g.csv", tmp_path / "feedback"
    grades.parent.mkdir()
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nhonest,Honest Student,h@example.org\n"
                      "linker,Linker Student,l@example.org\n")
    isolation = [] if unavailable() is None else ["--no-isolation"]
    done = CliRunner().invoke(app, [
        "teacher", "recheck", str(subs), "--roster", str(roster), "--out", str(grades),
        "--catalog", str(course), "--feedback", str(feedback), "--plain", *isolation])
    assert done.exit_code == 0, done.output
    rows = {r["id"]: r for r in csv.DictReader(grades.open(encoding="utf-8"))}
    assert float(rows["honest"]["points"]) == sum(map(_points, EXERCISES))
    assert float(rows["linker"]["points"]) == 0
    page = (feedback / "linker.html").read_text(encoding="utf-8")
    assert "hard link" in page
    everything = [done.output, *(p.read_text(encoding="utf-8", errors="replace")
                                 for folder in (grades.parent, feedback)
                                 for p in folder.iterdir())]
    assert not [text for text in everything if SECRET in text]


MODEL_DEPS = ("numpy", "numpy.libs", "ml_dtypes", "msgpack", "websockets")
"""What the model imports in the jail: in a pip install they sit beside RouterLab."""


def _deps_without_numpy(folder: Path) -> Path:
    """This interpreter's packages but the model's (`MODEL_DEPS`), in a folder no jail mounts
    (not named site-packages): the wheel's venv must bring those itself, as `pip install`
    does."""
    here = Path(sysconfig.get_paths()["purelib"])
    folder.mkdir()
    for entry in here.iterdir():
        if entry.name.startswith((*MODEL_DEPS, "routerlab", "__editable__")) \
                or entry.suffix == ".pth":
            continue
        (folder / entry.name).symlink_to(entry)
    return folder


@pytest.mark.slow  # builds the wheel, then grades a class of three in the jail
@pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))
def test_an_installed_wheel_grades_the_quickstart_class_as_a_checkout_does(
        tmp_path: Path) -> None:
    work = tmp_path / "src"
    shutil.copytree(ROOT, work, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis"))
    built = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation",
                            "--outdir", str(tmp_path / "dist"), str(work)],
                           capture_output=True, text=True, timeout=600, check=False)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("routerlab-*.whl")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                                "['purelib'])"], capture_output=True, text=True,
                               check=True).stdout.strip())
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                                "-q", "--no-deps", "--no-index", "--disable-pip-version-check",
                                str(wheel)], capture_output=True, text=True, timeout=600,
                               check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    here = Path(sysconfig.get_paths()["purelib"])
    for name in MODEL_DEPS:  # beside RouterLab, as pip puts them
        shutil.copytree(here / name, site / name, symlinks=True)
    (site / "zz_deps.pth").write_text(str(_deps_without_numpy(tmp_path / "deps")) + "\n")
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "LANG": "C.UTF-8", "NO_COLOR": "1", "COLUMNS": "200",
           "PATH": f"{env_dir / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    made = subprocess.run([str(env_dir / "bin" / "routerlab"), "teacher", "quickstart", "course",
                           "--plain"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert made.returncode == 0, made.stdout + made.stderr
    commands = [line for line in made.stdout.splitlines() if " teacher " in line
                and not line.startswith(" ")]
    assert len(commands) == 2, made.stdout
    for command in commands:
        done = subprocess.run(command, shell=True, cwd=tmp_path / "course", env=env,
                              capture_output=True, text=True, timeout=900, check=False)
        assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}"
    with (tmp_path / "course" / "grades" / "grades.csv").open(newline="") as table:
        rows = {row["id"]: row for row in csv.DictReader(table)}
    assert float(rows["ada"]["points"]) == load_catalog().total_points, rows["ada"]
    assert rows["ada"]["status"] == "ok"


def test_a_linked_progress_file_is_moved_aside_and_its_target_never_copied(
        tmp_path: Path) -> None:
    from routerlab.exercises.learner.state import StateStore

    key = tmp_path / "teacher.key"
    key.write_text(SECRET + "\n")
    os.chmod(key, 0o600)
    honest = StateStore(tmp_path / "honest" / ".routerlab" / "state.json")
    honest.update(lambda s: setattr(s.record("registry-1"), "attempts", 2))
    store = StateStore(tmp_path / "ws" / ".routerlab" / "state.json")
    store.update(lambda s: setattr(s.record("registry-1"), "attempts", 3))
    store.path.unlink()
    store.path.symlink_to(key)  # and the good copy too: neither is read through
    store.good_copy.unlink()
    store.good_copy.symlink_to(key)
    state = store.load()
    assert any("was a link" in p for p in state.problems), state.problems
    assert state.records == {}  # the good copy was a link as well: progress starts over
    folder = store.path.parent
    texts = [p.read_bytes() for p in folder.iterdir() if not p.is_symlink() and p.is_file()]
    assert not [t for t in texts if SECRET.encode() in t]  # no copy of the key anywhere
    assert [p for p in folder.glob("state.json.link-*") if p.is_symlink()]  # the link, aside
    assert not store.path.is_symlink() and key.read_text() == SECRET + "\n"
    store.update(lambda s: setattr(s.record("registry-1"), "attempts", 1))
    assert key.read_text() == SECRET + "\n"  # a save never writes through a link
    assert honest.load().records["registry-1"].attempts == 2  # the control keeps its progress
    assert honest.load().problems == []
