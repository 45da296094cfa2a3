"""Hostile input for every `routerlab` command: a non-zero exit, exactly one `error: ` line on
stderr, no traceback, under 10 s each (issue 9).

Each command is a valid command line with fields a user controls; a case puts one hostile value
(every one of the field's pool, in turn) or, for a seeded sample, several at once into it. Every
pooled value is invalid where it goes, so every case must be refused. The sample's seed is
`ROUTERLAB_FUZZ_SEED` (default fixed, so CI is repeatable); a failure names its command line.
The `exercises` and `teacher` commands are fuzzed in `test_fuzz_exercises`, on hostile
workspaces and files as well as hostile arguments.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

BIG = "9" * 5000
DEEP = "[" * 100000 + "]" * 100000
DIMS_65 = ",".join(["1"] * 65)
MARKUP = "[bold red]x[/] [/nope]"
CONTROL = "\x1b[2J\x1b]0;title\x07\r\u202e"
UNDECODABLE = "cpu:0\udcff\udcfe"  # argv bytes that are not UTF-8, as Python decodes them

HOPS = ["0", "-1", "1001", "9223372036854775808", BIG, "1e3", "", "x", "\u0661", MARKUP]
SEED = [BIG, "x", "", "1.5", MARKUP]  # a negative seed is refused only with --random
JSON = [DEEP, f"[{BIG}]", "[" + "9" * 400 + "]", "[1e999]", "[NaN]", "[-Infinity]", "{}", "[]",
        "[[1], [2, 3]]", "[true]", '["1"]', "[1,]", "", "\x00", CONTROL, MARKUP, UNDECODABLE,
        "[" * 65 + "1" + "]" * 65]
SHAPE = [DIMS_65, ",".join(["1"] * 33), "0", "-1", BIG, "1,,2", "", "9" * 30, "2x3", "\u0661",
         "99999,99999,99999", MARKUP, CONTROL, "3,-3"]
DEVICE = ["cpu:" + BIG, "cpu:65536", "gpu:0", "cpu", "cpu:-1", "", CONTROL, MARKUP, UNDECODABLE,
          "peer2/cpu:0@nope", "/cpu:0", "cpu:\u0661"]
SCHEME = ["q8s:block=" + BIG, "q4s:store=packed-u32@" + BIG, "q4s:store=packed-u32@\u00b2",
          "q9s", "", "q8s:block=0", "q8s:block=-1", "q8s:scale=nope", "q8s:block=2x" + BIG,
          "q8s:block=32:block=32", CONTROL, MARKUP, UNDECODABLE, "q8s:" + "x" * 100000]
CHOICE = ["nope", "", CONTROL, MARKUP, UNDECODABLE, BIG]

HEAD = 'devices = ["cpu:0"]\n'
X = '[[steps]]\nop = "tensor"\nname = "x"\nvalues = [1.0, 2.0]\ndevice = "cpu:0"\n'
BAD_STEP = '[[steps]]\nop = "drop"\ntensor = "nope"\n'  # refused when the file is loaded
SCENARIOS: dict[str, str | bytes] = {
    "deep.toml": HEAD + "x = " + "[" * 5000 + "]" * 5000 + "\n",
    "bigint.toml": HEAD + f"x = {BIG}\n",
    "hexint.toml": HEAD + "x = 0x" + "f" * 5000 + "\n",
    "date.toml": HEAD + "x = 9999-99-99\n",
    "latin1.bin": 'title = "caf\xe9"\n'.encode("latin-1"),
    "garbage.bin": bytes(range(256)) * 16,
    "nul.toml": HEAD + 'title = "a\x00b"\n',
    "bom.toml": "\ufeff" + HEAD + "steps = []\n",
    "empty.toml": "",
    "huge.toml": HEAD + "steps = []\n#" + "x" * (1 << 20),
    "no-steps.toml": HEAD,
    "steps-string.toml": HEAD + 'steps = "all of them"\n',
    "device-big.toml": f'devices = ["cpu:{BIG}"]\nsteps = []\n',
    "device-control.toml": 'devices = ["cpu:0\\u001b[2J"]\nsteps = []\n',
    "markup-fails.toml": f'title = "{MARKUP}"\n' + HEAD + X + BAD_STEP,
    "control-fails.toml": 'title = "\\u001b[2J\\r"\n' + HEAD + X + BAD_STEP,
    "values-deep.toml": HEAD + X.replace("[1.0, 2.0]", "[" * 63 + "1.0" + "]" * 63),
    "values-40d.toml": HEAD + X.replace("[1.0, 2.0]", "[" * 40 + "1.0" + "]" * 40),
    "values-bigint.toml": HEAD + X.replace("[1.0, 2.0]", "[" + "9" * 400 + "]"),
    "reshape-65d.toml": HEAD + X.replace("[1.0, 2.0]", "[1.0]") +
    f'[[steps]]\nop = "reshape"\ntensor = "x"\nname = "y"\nshape = [{DIMS_65}]\n',
    "reshape-huge.toml": HEAD + X + '[[steps]]\nop = "reshape"\ntensor = "x"\nname = "y"\n'
    f"shape = [{'9' * 30}]\n",
    "scheme-big.toml": HEAD + X + '[[steps]]\nop = "quantize"\ntensor = "x"\nname = "q"\n'
    f'scheme = "q8s:block={BIG}"\n',
    "swap-huge.toml": HEAD + X + '[[steps]]\nop = "swap_dims"\ntensor = "x"\nname = "y"\n'
    f"dim1 = 0\ndim2 = {'9' * 30}\n",
    "label-control.toml": HEAD + X.replace('name = "x"', 'name = "x\\u001b[2J"') +
    '[[steps]]\nop = "drop"\ntensor = "nope\\u001b"\n',
}


def _scenario_paths(folder: Path, fifo: str) -> list[str]:
    paths = [fifo, "/dev/zero", str(folder), str(folder / "absent.toml")]
    for name, content in SCENARIOS.items():
        path = folder / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        paths.append(str(path))
    return paths


Fields = dict[str, list[str]]
"""Per option (or `ARG` for the positional argument), the hostile values it takes."""


def commands(folder: Path, fifo: str) -> dict[str, tuple[list[str], Fields]]:
    """Every command: a valid command line, and the fields a case makes hostile."""
    scenarios = _scenario_paths(folder, fifo)
    tensor: Fields = {"--values": JSON, "--shape": SHAPE, "--random": SHAPE, "--seed": SEED,
                      "--scheme": SCHEME}
    moving: Fields = {**tensor, "--from": DEVICE, "--to": DEVICE, "--path": CHOICE,
                      "--backend": CHOICE, "--hops": HOPS}
    return {
        "quantize": (["quantize", "--values", "[1.5, -2]"],
                     {**tensor, "--scales": JSON, "--calibration": CHOICE, "--backend": CHOICE}),
        "transfer": (["transfer", "--values", "[1.5, -2]"], {**moving, "--policy": CHOICE}),
        "compare": (["compare", "--values", "[1.5, -2]"], moving),
        "simulate": (["simulate", "ARG"], {"ARG": scenarios, "--policy": CHOICE}),
        "validate": (["validate", "ARG"], {"ARG": scenarios, "--policy": CHOICE}),
        "lab": (["lab", "--dry-run"], {"ARG": [fifo, "/dev/zero", str(folder / "absent"),
                                               str(folder / "empty.toml")],
                                       "--port": ["-1", "65536", BIG, "x", MARKUP]}),
        "tour": (["tour", "--no-pause"], {"--nope": ["1"], "ARG": ["extra", CONTROL]}),
        "doctor": (["doctor"], {"--nope": ["1"], "ARG": ["extra", MARKUP]}),
    }


def _with(base: list[str], changes: dict[str, str]) -> list[str]:
    """`base` with each field of `changes` set (a positional `ARG` replaced or appended)."""
    argv = list(base)
    for field, value in changes.items():
        if field == "ARG":
            if "ARG" in argv:
                argv[argv.index("ARG")] = value
            else:
                argv.append(value)
        elif field in argv:
            argv[argv.index(field) + 1] = value
        else:
            argv += [field, value]
    if "--random" in changes and "--values" in argv and "--values" not in changes:
        del argv[argv.index("--values"):argv.index("--values") + 2]
    return argv


def _valid_scenario(folder: Path) -> str:
    path = folder / "valid.toml"
    path.write_text(HEAD + X)
    return str(path)


def cases(folder: Path, fifo: str, seed: int, sampled: int) -> list[list[str]]:
    """Every single hostile value in every field, then `sampled` seeded multi-field cases."""
    table = commands(folder, fifo)
    valid = _valid_scenario(folder)
    every: list[list[str]] = []
    for base, fields in table.values():
        base = [valid if a == "ARG" and base[0] in ("simulate", "validate") else a for a in base]
        if base[0] in ("simulate", "validate"):
            base = [base[0], "ARG", *base[2:]]
        for field, pool in fields.items():
            for value in pool:
                argv = _with(base, {field: value})
                every.append([valid if a == "ARG" else a for a in argv])
    rng = random.Random(seed)
    names = sorted(table)
    for _ in range(sampled):
        base, fields = table[rng.choice(names)]
        chosen = rng.sample(sorted(fields), k=min(len(fields), rng.randint(2, 3)))
        argv = _with(base, {field: rng.choice(fields[field]) for field in chosen})
        every.append([valid if a == "ARG" else a for a in argv])
    return every


def test_every_command_refuses_hostile_input_in_one_line(invoke, fifo: str,
                                                         tmp_path: Path) -> None:
    seed = int(os.environ.get("ROUTERLAB_FUZZ_SEED", "9"))
    generated = cases(tmp_path, fifo, seed, sampled=150)
    assert len(generated) > 500  # every field of every command, each hostile value
    for argv in generated:
        invoke(*argv).assert_refused()


def test_the_valid_command_lines_under_the_fuzz_are_accepted(invoke, fifo: str,
                                                             tmp_path: Path) -> None:
    """The fuzz would prove nothing if its base command lines failed anyway."""
    valid = _valid_scenario(tmp_path)
    for name, (base, _) in commands(tmp_path, fifo).items():
        if name in ("lab", "tour"):  # lab starts nothing with --dry-run; the tour is long
            continue
        outcome = invoke(*[valid if a == "ARG" else a for a in base])
        assert outcome.code == 0 and outcome.err == "", (base, outcome.err[-500:])


def _hostile_workspaces(invoke: Callable[..., Any], d: Path, fifo: str) -> dict[str, str]:
    """A good workspace and, copied from it, one per hostile part: each is refused by every
    command that reads that part."""
    good = d / "ws"
    assert invoke("exercises", "init", str(good), "--student", "Ada").code == 0
    made = {"ws": str(good)}

    def variant(name: str, change: Callable[[Path], object]) -> None:
        root = d / name
        shutil.copytree(good, root)
        change(root)
        made[name] = str(root)

    def state_is(kind: str) -> Callable[[Path], object]:
        def change(root: Path) -> None:
            state = root / ".routerlab" / "state.json"
            state.unlink(missing_ok=True)
            if kind == "dir":
                state.mkdir()
            elif kind == "fifo":
                os.mkfifo(state)
            else:
                state.symlink_to("/dev/zero")
        return change

    def marker(content: bytes) -> Callable[[Path], object]:
        return lambda root: (root / "routerlab-exercises.toml").write_bytes(content)

    def exercises_dir_is_a_file(root: Path) -> None:
        shutil.rmtree(root / "exercises")
        (root / "exercises").write_text("not a folder")

    def submission_is_a_fifo(root: Path) -> None:
        (root / "exercises" / "registry_1.py").unlink()
        os.mkfifo(root / "exercises" / "registry_1.py")

    variant("state-dir", state_is("dir"))
    variant("state-fifo", state_is("fifo"))
    variant("state-zero", state_is("zero"))
    variant("marker-latin1", marker(b'student = "caf\xe9"\n'))
    variant("marker-deep", marker(b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n"))
    variant("marker-bigint", marker(f"x = {BIG}\n".encode()))
    variant("marker-garbage", marker(bytes(range(256))))
    variant("no-exercises-dir", exercises_dir_is_a_file)
    variant("submission-fifo", submission_is_a_fifo)
    return made


def _grade_folders(d: Path, fifo: str) -> list[str]:
    """Folders of handed-in results, each of which `teacher grades` must refuse."""
    contents: dict[str, str | bytes] = {
        "deep": DEEP, "bigint": f'{{"format": "routerlab-exercise-results", "x": {BIG}}}',
        "latin1": b'{"student": "caf\xe9"}', "markup": json.dumps({"student": MARKUP}),
        "wrong-kind": json.dumps({"format": "routerlab-exercise-results", "student": "Ada",
                                  "exercises": [{"id": "registry-1", "points": 1e999}]}),
        "empty": "", "nul": "\x00",
    }
    folders = []
    for name, content in contents.items():
        folder = d / "grades" / name
        folder.mkdir(parents=True)
        (folder / "ada.json").write_bytes(content if isinstance(content, bytes)
                                          else content.encode())
        folders.append(str(folder))
    special = d / "grades" / "special"
    special.mkdir()
    os.mkfifo(special / "fifo.json")
    (special / "zero.json").symlink_to("/dev/zero")
    return [*folders, str(special), str(d / "grades" / "absent"), fifo]


def exercise_cases(invoke: Callable[..., Any], d: Path, fifo: str) -> dict[str, list[list[str]]]:
    """Per `exercises`/`teacher` subcommand, command lines that must each be refused."""
    from routerlab.exercises.catalog import catalog_root

    ws = _hostile_workspaces(invoke, d, fifo)
    good = ws["ws"]
    # a state.json linked to /dev/zero is no refusal: the link is moved aside and the command
    # goes on (tests/exercises/test_hostile_class_more.py)
    broken = [root for name, root in ws.items()
              if name.startswith(("state-", "marker-")) and name != "state-zero"]
    not_workspaces = ["/dev/zero", fifo, str(d / "absent"), "/dev/null/x", CONTROL, MARKUP]
    dirs = [*broken, *not_workspaces]
    bad_ids = [CONTROL, MARKUP, "", BIG, UNDECODABLE, "nope"]
    py = d / "py"
    py.mkdir()
    to_seal = [fifo, "/dev/zero", str(d / "absent.py"), str(d)]
    for name, content in {"syntax.py": "answer = (\n", "latin1.py": b"x = '\xe9'\n",
                          "nul.py": "x = 1\x00\n", "deep.py": "x = " + "-" * 100000 + "1",
                          "parens.py": "x = " + "(" * 300 + "1" + ")" * 300,
                          "empty.py": "", "wrong.py": "ADD_STATUSES = 'nope'\n"}.items():
        (py / name).write_bytes(content if isinstance(content, bytes) else content.encode())
        to_seal.append(str(py / name))
    (py / "solutions.json").write_text(json.dumps(  # well formed, but `good` is self-study
        {"format": "routerlab-solutions", "course": "c1", "exercises": {}}))
    cases: dict[str, list[list[str]]] = {
        "init": [["exercises", "init", p] for p in
                 ["/dev/null/ws", "/dev/zero", fifo, str(Path(good) / "inner"), "/proc/x/y",
                  str(Path(ws["no-exercises-dir"]) / "exercises")]],
        "upgrade": [["exercises", "upgrade", "--dir", p] for p in
                    [*not_workspaces, *[ws[n] for n in ws if n.startswith("marker-")],
                     ws["no-exercises-dir"]]],
        "export": [["exercises", "export", "--dir", p] for p in dirs]
        + [["exercises", "export", "--dir", good, "--out", p] for p in
           ["/dev/null/x.json", fifo, str(d), str(d / "absent" / "x.json"), "/dev/zero"]],
        "recheck": [["teacher", "recheck", p] for p in [*not_workspaces, ws["marker-latin1"]]]
        + [["teacher", "recheck", good, "--out", p] for p in  # a missing folder is made
           ["/dev/null/x.csv", str(d), fifo]]
        + [["teacher", "recheck", good, "--jobs", j] for j in ["0", "-1", BIG, "x"]],
        "grades": [["teacher", "grades", p] for p in _grade_folders(d, fifo)],
        "seal": [["teacher", "seal", "registry-2", p] for p in to_seal]
        + [["teacher", "seal", "registry-1", str(py / "syntax.py")]]
        + [["teacher", "seal", e, str(py / "wrong.py")] for e in bad_ids]
        + [["teacher", "seal", "registry-2", str(py / "wrong.py"), "--wrong", p]
           for p in [fifo, str(py / "syntax.py"), "/dev/zero"]]
        + [["teacher", "seal", "registry-2", str(py / "wrong.py"), "--catalog", p]
           for p in [str(d / "new-course"), fifo, good, str(catalog_root())]],
        "lint": [["teacher", "lint", e] for e in bad_ids] + [["teacher", "lint", "--nope"]]
        + [["teacher", "lint", "--catalog", p] for p in [fifo, str(d / "absent"), good]],
        "release": [["teacher", "release", str(d / "out"), "--course", c]
                    for c in [CONTROL, MARKUP, "", "../x", BIG]]
        + [["teacher", "release", p, "--course", "c1"]
           for p in [fifo, "/dev/zero", "/dev/null/x", good, str(d / "absent" / "out")]]
        + [["teacher", "release", str(d / "out"), "--course", "c1", "--hints", h]
           for h in ["4", "-1", "x"]]
        + [["teacher", "release", str(d / "out"), "--course", "c1", "--catalog", p]
           for p in [fifo, str(d / "absent"), good]],
        "release-solutions": [["teacher", "release-solutions", p, "--course", "c1"]
                              for p in ["/dev/null/x.json", fifo, str(d),
                                        str(d / "absent" / "x.json")]]
        + [["teacher", "release-solutions", str(d / "s.json"), e, "--course", "c1"]
           for e in bad_ids if e]
        + [["teacher", "release-solutions", str(d / "s.json"), "--course", c]
           for c in [CONTROL, MARKUP, ""]],
        "import-solutions": [["exercises", "import-solutions", p, "--dir", good]
                             for p in [fifo, "/dev/zero", str(d / "absent.json"),
                                       *[str(py / n) for n in ("deep.py", "empty.py", "nul.py")],
                                       str(py / "solutions.json")]]
        + [["exercises", "import-solutions", str(py / "solutions.json"), "--dir", p]
           for p in dirs],
        "watch": [["exercises", "watch", "--dir", p] for p in dirs]
        + [["exercises", "watch", "--poll", "--interval", v, "--dir", good]
           for v in ["0", "-1", BIG, "nan", "x"]],
        "check": [["exercises", "check", "--dir", ws["submission-fifo"], "registry-1"]]
        + [["exercises", "check", e, "--dir", good] for e in bad_ids if e],  # "": the next
        "solution": [["exercises", "solution", "registry-1", "--dir", good]]  # locked
        + [["exercises", "solution", e, "--dir", good] for e in bad_ids],
        "reset": [["exercises", "reset", "registry-1", "--dir", good]]  # no answer: aborted
        + [["exercises", "reset", "registry-1", "-y", "--dir", ws["no-exercises-dir"]]]
        + [["exercises", "reset", e, "-y", "--dir", good] for e in bad_ids],
        "hint": [["exercises", "hint", "registry-1", "--level", v, "--dir", good]
                 for v in ["0", "4", BIG, "x"]]
        + [["exercises", "hint", e, "--dir", good] for e in bad_ids],
        "show": [["exercises", "show", e] for e in bad_ids],
        "give-up": [["exercises", "give-up", e, "-y", "--dir", good] for e in bad_ids],
        "collect": _collect_cases(d, fifo),
        **_term_cases(d, fifo),
        "report": _report_cases(d, fifo),
        "quickstart": [["teacher", "quickstart", p]
                       for p in [fifo, "/dev/zero", "/dev/null/x", str(d)]],
    }
    for command in ("list", "progress", "check", "hint", "solution", "reset", "give-up"):
        extra = {"hint": ["registry-1"], "solution": ["registry-1"],
                 "reset": ["registry-1", "-y"], "check": ["registry-1"],
                 "give-up": ["registry-1", "-y"]}.get(command, [])
        cases.setdefault(command, []).extend(
            ["exercises", command, *extra, "--dir", p] for p in dirs)
    cases["list"].append(["exercises", "list", "--json", "--dir", "/dev/zero"])
    return cases


def _collect_cases(d: Path, fifo: str) -> list[list[str]]:
    """`teacher collect`: a token file or hub address it cannot use, or an output folder it
    cannot write, is refused before anything is copied (the hub is a closed loopback port)."""
    token = d / "py" / "token"
    token.write_text("0123456789abcdef\n")
    closed = "http://127.0.0.1:9"
    out = str(d / "collected")
    return ([["teacher", "collect", out, "--hub", closed, "--token-file", p]
             for p in [fifo, "/dev/zero", str(d / "absent"), "/dev/null/x", str(d)]]
            + [["teacher", "collect", out, "--hub", u, "--token-file", str(token)]
               for u in ["", "not a url", "ftp://127.0.0.1/", CONTROL, MARKUP, closed]]
            + [["teacher", "collect", p, "--hub", closed, "--token-file", str(token)]
               for p in [fifo, "/dev/zero", "/dev/null/x"]]
            + [["teacher", "collect", out, "--hub", closed]])  # no token anywhere


def _term_cases(d: Path, fifo: str) -> dict[str, list[list[str]]]:
    """The gradebook's commands: a course that is no course of this teacher (or no id at all),
    a date, policy or number in the wrong form, an output it cannot write."""
    courses = [CONTROL, MARKUP, "", "../x", BIG, "c1"]
    return {
        "assignment": [["teacher", "assignment", "w1", "--exercises", "quant-1", "--due",
                        "2027-03-01", "--course", c] for c in courses]
        + [["teacher", "assignment", "w1", "--exercises", "quant-1", "--due", w, "--course",
            "c1"] for w in ["", "x", BIG, "2027-02-30", CONTROL]]
        + [["teacher", "assignment", "w1", "--exercises", "quant-1", "--due", "2027-03-01",
            "--late", v, "--course", "c1"] for v in ["", "10", "x%/day", BIG]],
        "extension": [["teacher", "extension", "s1", "w1", "--due", "2027-03-01", "--course", c]
                      for c in courses]
        + [["teacher", "extension", s, "w1", "--due", "2027-03-01", "--course", "c1"]
           for s in [CONTROL, MARKUP, BIG]],
        "override": [["teacher", "override", "s1", "quant-1", "1", "--reason", "r", "--course",
                      c] for c in courses]
        + [["teacher", "override", "s1", "quant-1", v, "--reason", "r", "--course", "c1"]
           for v in ["x", "nan", BIG + "x"]],
        "history": [["teacher", "history", "s1", "--course", c] for c in courses]
        + [["teacher", "history", s, "--course", "c1", "--json"] for s in [CONTROL, BIG]],
        "export": [["teacher", "export", str(d / "g.csv"), "--format", f, "--course", c]
                   for f in ("csv", "moodle") for c in courses]
        + [["teacher", "export", p, "--format", "csv", "--course", "c1"]
           for p in ["/dev/null/x.csv", fifo, str(d)]]
        + [["teacher", "export", str(d / "g.csv"), "--format", f, "--course", "c1"]
           for f in ["", "xlsx", CONTROL]],
    }


def _report_cases(d: Path, fifo: str) -> list[list[str]]:
    """`teacher report`: a grades folder that is none, holds nothing or holds garbage, and an
    HTML path it cannot write."""
    garbage = d / "garbage-grades"
    garbage.mkdir()
    (garbage / "grades.jsonl").write_bytes(b"[" * 100000 + b"\n\xe9\x00{}\n")
    empty = d / "empty-grades"
    empty.mkdir()
    html = str(d / "report.html")
    return ([["teacher", "report", p, "--html", html]
             for p in [fifo, "/dev/zero", str(d / "absent"), "/dev/null/x", str(garbage),
                       str(empty)]]
            + [["teacher", "report", str(garbage), "--html", p]
               for p in ["/dev/null/x.html", fifo, str(d)]])


def _subcommands() -> set[str]:
    import importlib

    import typer

    from routerlab.cli.commands.exercises import exercises_app
    from routerlab.cli.commands.teacher import CLASS_MODULES, teacher_app

    class_commands = typer.Typer()  # the class's commands join `teacher` when the app is built
    for name in CLASS_MODULES:
        importlib.import_module(f"routerlab.cli.commands.{name}").register(class_commands)
    return {c.name or c.callback.__name__
            for app in (exercises_app, teacher_app, class_commands)
            for c in app.registered_commands if c.callback is not None}


def _tree(root: Path) -> dict[str, bytes | str]:
    """What a refused command must leave as it was: every file's bytes, every other path's
    kind (the empty lock file a command may create is not state)."""
    seen: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        if path.name == "state.lock":
            continue
        seen[str(path)] = (path.read_bytes() if path.is_file() and not path.is_symlink()
                           else "dir" if path.is_dir() else "special")
    return seen


def test_fuzz_exercises(invoke, fifo: str, tmp_path: Path,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `exercises` and `teacher` subcommand, on hostile workspaces, grade files, files to
    seal and arguments: refused in one line, in time, and nothing in the workspaces, the
    folders or the sealed catalog changes."""
    from routerlab.exercises.catalog import load_catalog

    monkeypatch.chdir(tmp_path)  # a default output path (grades.csv) lands where it is seen
    for name in ("ROUTERLAB_HUB_TOKEN", "JUPYTERHUB_API_TOKEN"):  # collect's token: none here
        monkeypatch.delenv(name, raising=False)
    cases = exercise_cases(invoke, tmp_path, fifo)
    assert set(cases) == _subcommands(), "every subcommand is fuzzed"
    assert sum(map(len, cases.values())) > 200
    catalog = [Path(str(e.folder)) / "sealed.json" for e in load_catalog()]
    sealed = [p.read_bytes() for p in catalog]
    before = _tree(tmp_path)
    for argv in (argv for lines in cases.values() for argv in lines):
        invoke(*argv).assert_refused()
    assert _tree(tmp_path) == before
    assert [p.read_bytes() for p in catalog] == sealed
