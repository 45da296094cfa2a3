"""Docs that count themselves: every count and list the README and docs/ give of the notebooks,
exercises, scenarios and commands is derived here from the repository, so the docs cannot drift
from it again (they said eight notebooks and fifteen exercises when there were nine and 34).

The sources of truth: `notebooks/*.ipynb` (and the "(about N minutes)" each states),
`exercises/catalog/index.toml` with each exercise's `exercise.toml`, the top-level
`scenarios/*.toml`, and the Typer app's commands.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from typer.main import get_command

from routerlab.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def _text(path: Path) -> str:
    """The file with its line breaks folded into spaces, so a phrase may wrap."""
    return " ".join(path.read_text(encoding="utf-8").split())


def _notebooks() -> list[str]:
    return sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))


def _minutes() -> dict[str, int]:
    """What each notebook says it takes: its goals' "(about N minutes)"."""
    found = {}
    for name in _notebooks():
        said = re.findall(r"\(about (\d+) minutes\)",
                          (ROOT / "notebooks" / f"{name}.ipynb").read_text("utf-8"))
        assert len(said) == 1, f"{name} states its time {len(said)} times"
        found[name] = int(said[0])
    return found


def _exercises() -> list[str]:
    catalog = ROOT / "exercises" / "catalog"
    order: list[str] = tomllib.loads((catalog / "index.toml").read_text("utf-8"))["order"]
    assert sorted(order) == sorted(p.parent.name for p in catalog.glob("*/exercise.toml"))
    return order


def _points(exercise: str) -> int:
    toml = ROOT / "exercises" / "catalog" / exercise / "exercise.toml"
    return int(tomllib.loads(toml.read_text("utf-8"))["points"])


def _scenarios() -> list[str]:
    return sorted(p.stem for p in (ROOT / "scenarios").glob("*.toml"))


def _quantized_scenarios() -> list[str]:
    """The shipped scenarios with a quantize step."""
    return [name for name in _scenarios()
            if any(step.get("op") == "quantize" for step in tomllib.loads(
                (ROOT / "scenarios" / f"{name}.toml").read_text("utf-8")).get("steps", []))]


def _listed(text: str, after: str) -> list[str]:
    """The backticked names of the list that follows `after` (up to the first full stop)."""
    start = text.index(after) + len(after)
    return re.findall(r"`([\w-]+)`", text[start:text.index(".", start)])


def _commands() -> dict[str, list[str]]:
    """Every command of the app, with its subcommands (empty for a plain command)."""
    group = get_command(app)
    return {name: sorted(getattr(command, "commands", {}))
            for name, command in group.commands.items()}  # type: ignore[attr-defined]


def test_readme_counts_and_names_the_notebooks_with_their_times() -> None:
    text = _text(README)
    minutes = _minutes()
    said = re.search(r"opens (\d+) guided notebooks, (\d+)–(\d+) minutes each \(about "
                     r"(\d+(?:\.\d+)?) hours in all\)", text)
    assert said, "README: 'opens N guided notebooks, A–B minutes each (about H hours in all)'"
    count, low, high, hours = said.groups()
    assert int(count) == len(_notebooks())
    assert (int(low), int(high)) == (min(minutes.values()), max(minutes.values()))
    assert abs(float(hours) * 60 - sum(minutes.values())) <= 15
    assert _listed(text, "from handles to the quantized-transfer fix and real peers:") \
        == _notebooks()


def test_notebooks_md_counts_the_series_and_gives_each_notebook_its_own_time() -> None:
    text = _text(DOCS / "notebooks.md")
    minutes = _minutes()
    said = re.search(r"The (\d+) JupyterLab notebooks .*? Each one takes (\d+) to (\d+) minutes "
                     r"to work through \(about (\d+(?:\.\d+)?) hours in all", text)
    assert said, "docs/notebooks.md: 'The N JupyterLab notebooks … takes A to B minutes …'"
    count, low, high, hours = said.groups()
    assert int(count) == len(minutes)
    assert (int(low), int(high)) == (min(minutes.values()), max(minutes.values()))
    assert abs(float(hours) * 60 - sum(minutes.values())) <= 15
    rows = dict(re.findall(r"^\| `(\d\d-[\w-]+)` \|.*\| about (\d+) min \| [\d.]+ s \|$",
                           (DOCS / "notebooks.md").read_text("utf-8"), re.M))
    assert {name: int(m) for name, m in rows.items()} == minutes
    assert f"all {len(minutes)} notebooks exist" in text


def test_readme_and_exercises_md_count_and_list_the_exercises() -> None:
    order = _exercises()
    said = re.search(r"(\d+) ordered exercises", _text(README))
    assert said and int(said.group(1)) == len(order)
    table = re.findall(r"^\| (\d+) \| `([\w-]+)` \|.*\| (\d+) \|$",
                       (DOCS / "exercises.md").read_text("utf-8"), re.M)
    assert [(int(n), ex) for n, ex, _ in table] == list(enumerate(order, start=1))
    assert [int(points) for *_, points in table] == [_points(ex) for ex in order]
    total = re.search(r"\*\*total\*\* \| \*\*(\d+)\*\*", _text(DOCS / "exercises.md"))
    assert total and int(total.group(1)) == sum(_points(ex) for ex in order)


@pytest.mark.parametrize(("doc", "after", "which"), [
    (README, "Shipped in `scenarios/`:", "all"),
    (DOCS / "transfers.md", "Shipped:", "quantized"),
    (DOCS / "scenarios.md", "Shipped quantized scenarios:", "quantized"),
])
def test_scenario_lists_are_the_shipped_files(doc: Path, after: str, which: str) -> None:
    expected = _scenarios() if which == "all" else _quantized_scenarios()
    assert sorted(_listed(_text(doc), after)) == expected


def test_readme_lists_every_command_and_exercises_md_every_classroom_subcommand() -> None:
    commands = _commands()
    first_cells = re.findall(r"^\| (`routerlab [^|]*)\|", README.read_text("utf-8"), re.M)
    table = {name for cell in first_cells for name in re.findall(r"`routerlab ([a-z-]+)", cell)}
    assert table == set(commands)
    classroom = _text(DOCS / "exercises.md")
    for group in ("exercises", "teacher"):
        missing = [sub for sub in commands[group] if f"routerlab {group} {sub}" not in classroom]
        assert not missing, f"docs/exercises.md never shows routerlab {group} {missing}"
