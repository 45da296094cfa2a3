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


MODEL_DEPS = ("numpy", "numpy.libs", "ml_dtypes", "msgpack", "websockets", "cryptography",
              "cffi", "_cffi_backend", "pycparser")
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
    for entry in here.iterdir():  # beside RouterLab, as pip puts them
        if entry.name.split(".")[0] in MODEL_DEPS or entry.name in MODEL_DEPS:
            if entry.is_dir():
                shutil.copytree(entry, site / entry.name, symlinks=True)
            else:
                shutil.copy2(entry, site / entry.name)
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
    assert len(commands) == 8 and " teacher recheck " in commands[2], made.stdout  # the term
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


GARBLED_ROSTERS = [
    (b"id,name,email\nada,Ada,a@x\nbob,Bob,b@x\nada,Ada again,c@x\n",
     "line 4: the id 'ada' is listed twice (lines 2 and 4)"),
    (b'id,name,email\nada,"Ada,a@x\nbob,Bob,b@x\ncy,Cy,c@x\n', "line 2: not CSV"),
    (b"id,name,email\nada,Ada,a@x\nbob,Jos\xe9,b@x\n", "line 3: not UTF-8 (byte 0xe9)"),
    (b"id,name,email\nada,Ada,a@x\n" + b"x" * 10_000 + b",Long,l@x\n",
     "line 3: an id of 10000 characters"),
]


@pytest.mark.parametrize("roster, says", GARBLED_ROSTERS)
def test_release_refuses_a_garbled_roster_naming_its_line(tmp_path: Path, roster: bytes,
                                                           says: str) -> None:
    path = tmp_path / "roster.csv"
    path.write_bytes(roster)
    done = CliRunner().invoke(app, ["teacher", "release", str(tmp_path / "bundle"), "--course",
                                    "c1", "--roster", str(path), "--plain"])
    assert done.exit_code == 1, done.output
    assert says in str(done.exception) + done.output
    assert not (tmp_path / "bundle").exists()  # refused before anything is written


def test_release_with_an_honest_roster_still_releases_a_variant_each(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = tmp_path / "roster.csv"
    path.write_text('id,name,email\nada,"Lovelace, Ada",a@x\nbob,O\'Brien,b@x\n')
    done = CliRunner().invoke(app, ["teacher", "release", str(tmp_path / "bundle"), "--course",
                                    "c1", "--roster", str(path), "--plain"])
    assert done.exit_code == 0, done.output
    assert "a variant for each of 2 students" in done.output


def test_roster_matching_counts_each_id_once_and_keeps_the_first_row(tmp_path: Path) -> None:
    from routerlab.exercises.teacher.roster import Student, match

    submitted = tmp_path / "submitted"
    for name in ("s1", "s2", "zz"):
        (submitted / name).mkdir(parents=True)
    students = [Student("s1", "One", "a@x"), Student("s2", "Two", "b@x"),
                Student("s1", "One again", "c@x"), Student("s3", "Three", "d@x")]
    matched = match(students, submitted)
    assert [s.name for s in matched.students] == ["One", "Two", "Three"]
    assert matched.duplicates == ["s1"] and matched.missing == ["s3"]
    assert [p.name for p in matched.unknown] == ["zz"]


def test_recheck_of_an_empty_folder_is_refused_and_a_handed_in_one_is_graded(
        tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "g.csv"
    done = CliRunner().invoke(app, ["teacher", "recheck", str(empty), "--out", str(out),
                                    "--plain", "--no-isolation"])
    assert done.exit_code == 1 and "an empty folder" in str(done.exception) + done.output
    assert not out.exists()


@pytest.mark.parametrize("argv, code, says", [
    (["quantize", "--scheme", "q4s:store=packed-u32@99", "--values", "[1,2,3,4]"], 2,
     "packing dim 99 does not exist in a rank-1 tensor"),
    (["transfer", "--scheme", "q4s:store=packed-u32@1", "--random", "8"], 2,
     "packing dim 1 does not exist"),
    (["doctor", "--peer", "p" * 100_000 + "=ws://127.0.0.1:9"], 2, "at most 64 characters"),
    (["serve", "--allow-origin", ""], 2, "is not a web origin"),
    (["serve", "--allow-origin", "*"], 2, "would let every web page connect"),
    (["serve", "--allow-origin", "http://localhost:8888/path"], 2, "is not a web origin"),
    (["serve", "--local", "2", "--port", "5"], 2, "leave out --port"),
])
def test_bad_input_is_one_line_and_a_non_zero_exit(argv: list[str], code: int,
                                                    says: str) -> None:
    done = CliRunner().invoke(app, argv, env={"NO_COLOR": "1", "COLUMNS": "300"})
    assert done.exit_code == code, (done.exit_code, done.output[-500:])
    assert says in " ".join(done.output.split()), done.output[-500:]
    assert "Traceback" not in done.output and len(done.output) < 2000


def test_the_honest_controls_of_those_options_still_run() -> None:
    done = CliRunner().invoke(app, ["quantize", "--scheme", "q4s:store=packed-u32@0",
                                    "--values", "[1,2,3,4]", "--plain"])
    assert done.exit_code == 0, done.output
    from routerlab.cli.commands.serve import _origins

    assert _origins(["http://localhost:8888", "https://[::1]:9/"]) == [
        "http://localhost:8888", "https://[::1]:9/"]


def test_doctor_exits_1_when_a_named_peer_does_not_answer() -> None:
    import socket

    with socket.socket() as sock:  # a port that was free a moment ago: nothing answers there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = CliRunner().invoke(app, ["doctor", "--plain", "--peer", f"gone=ws://127.0.0.1:{port}"])
    assert done.exit_code == 1, done.output[-500:]
    assert "gone did not answer" in " ".join(done.output.split())
    alone = CliRunner().invoke(app, ["doctor", "--plain"])
    assert alone.exit_code == 0, alone.output[-500:]  # no peer asked for: nothing missing


def test_lint_refuses_a_billion_variants_before_anything_runs() -> None:
    done = CliRunner().invoke(app, ["teacher", "lint", "--variants", str(10**9), "registry-1"])
    assert done.exit_code == 1
    assert "prove 0 to 1000 variants" in str(done.exception) + done.output


def test_the_demo_hub_keeps_its_proxy_pid_file_in_its_own_folder(tmp_path: Path) -> None:
    from routerlab.exercises.teacher.hub import DemoHub

    hub = DemoHub(tmp_path / "demo", 8001, 1, "pw", Path("/bin/true"), None)
    config = hub.config(8002, 8003, "token")
    assert config["ConfigurableHTTPProxy"]["pid_file"] == str(tmp_path / "demo" /
                                                              "jupyterhub-proxy.pid")
    assert Path(config["JupyterHub"]["pid_file"]).parent == tmp_path / "demo"
