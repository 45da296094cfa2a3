"""Hostile input for every `routerlab` command: a non-zero exit, exactly one `error: ` line on
stderr, no traceback, under 10 s each (issue 9).

Each command is a valid command line with fields a user controls; a case puts one hostile value
(every one of the field's pool, in turn) or, for a seeded sample, several at once into it. Every
pooled value is invalid where it goes, so every case must be refused. The sample's seed is
`ROUTERLAB_FUZZ_SEED` (default fixed, so CI is repeatable); a failure names its command line.
The exercise commands are fuzzed in `test_fuzz_exercises` until the issue 11 merge.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from pathlib import Path

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


EXERCISES: list[Callable[[Path, str], list[str]]] = [
    lambda d, f: ["exercises", "show", CONTROL],
    lambda d, f: ["exercises", "show", "registry-1", "--dir", f],
    lambda d, f: ["exercises", "list", "--dir", "/dev/zero"],
    lambda d, f: ["exercises", "check", MARKUP, "--dir", str(d)],
    lambda d, f: ["exercises", "hint", "registry-1", "--level", BIG],
    lambda d, f: ["exercises", "progress", "--dir", str(d / "absent")],
    lambda d, f: ["exercises", "export", "--dir", str(d), "--out", "/dev/null/x.json"],
    lambda d, f: ["exercises", "init", "/dev/null/ws"],
    lambda d, f: ["teacher", "grades", str(d / "absent")],
    lambda d, f: ["teacher", "seal", "registry-2", f],
    lambda d, f: ["teacher", "lint", CONTROL],
]


@pytest.mark.xfail(strict=False, reason="issue 11 merge: exercises/ reads through "
                                        "routerlab.core.safe_io")
def test_fuzz_exercises(invoke, fifo: str, tmp_path: Path) -> None:
    for make in EXERCISES:
        invoke(*make(tmp_path, fifo)).assert_refused()
