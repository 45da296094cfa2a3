"""The answer-leak rule itself (`answer_leaks.py`): it finds an answer stated above a reveal, as
a value, a literal or a quoted choice, in a source or an output, and leaves the question's own
inputs and choices alone."""

from __future__ import annotations

from answer_leaks import leaks

ANSWERS = {"IDS_AFTER": [1, 3], "READ_A": "panic", "HOST_BYTES": 8000, "SCALE": 0.625,
           "SURVIVES": True}


def _md(text: str) -> dict:
    return {"cell_type": "markdown", "source": text}


def _code(text: str, shown: str = "") -> dict:
    outputs = [{"output_type": "stream", "name": "stdout", "text": shown}] if shown else []
    return {"cell_type": "code", "source": text, "outputs": outputs}


QUESTION = _md('### Checkpoint `demo-1` (predict): a read\n\nSay `"panic"` or `"ok"`.')
ANSWER = _code('IDS_AFTER = ...  # e.g. [0]\nREAD_A = ...  # "panic" or "ok"')
REVEAL = _code('lab.reveal("demo-1", lambda: table)')


def _found(*above: dict) -> list[str]:
    return leaks([*above, QUESTION, ANSWER, REVEAL, _md('It said "panic" with [1, 3].')],
                 "demo-1", ANSWERS)


def test_the_question_its_answer_cell_and_what_follows_the_reveal_are_not_leaks() -> None:
    assert _found(_md("Reading a tensor after its last use is a bug."), _code("x = 3")) == []


def test_values_literals_and_quoted_choices_above_the_reveal_are_leaks() -> None:
    assert _found(_md("The ids left are [1,  3].")) == [
        "cell 0: IDS_AFTER = [1, 3] (\\[1,3\\])"]
    assert len(_found(_md('Then the read is "panic".'))) == 1
    assert len(_found(_md("8,000 bytes cross the host."))) == 1
    assert len(_found(_code("print(board)", shown="host bytes 8000"))) == 1, "an output"
    assert len(_found(_md("a scale of 0.625"))) == 1


def test_an_example_equal_to_the_answer_is_a_leak() -> None:
    cells = [QUESTION, _code("IDS_AFTER = ...  # e.g. [1, 3]"), REVEAL]
    assert leaks(cells, "demo-1", ANSWERS) == ["cell 1: IDS_AFTER = [1, 3] (\\[1,3\\])"]


def test_code_strings_backticked_concepts_and_booleans_are_not_leaks() -> None:
    assert _found(_code('state = ended or "panic"'), _md("A `panic` ends the session."),
                  _md("True, it survives.")) == []


def test_a_doc_states_an_answer_as_a_value_a_series_or_a_literal_but_not_as_a_concept() -> None:
    from answer_leaks import doc_leaks

    answers = {"SCALES": [0.6, 0.8, 1.0667, 1.4222], "BYTES": 8000, "BLOCK": 16,
               "FIRST": "get_tensor", "IDS": [1, 3]}
    series = doc_leaks("the scale goes 0.6 → 0.8 → 1.0667 (a hop each)", answers)
    assert len(series) == 1 and series[0].startswith("line 1: SCALES"), "one item of a series"
    assert doc_leaks("a\nmoves 8,000 bytes", answers)[0].startswith("line 2: BYTES")
    assert doc_leaks("the ids `[1, 3]` stay", answers)[0].startswith("line 1: IDS")
    quiet = ("`get_tensor` fires first (interpreter.rs:88-8000); a block of 16; "
             'policy = "get_tensor"; version 1.4.8000')
    assert doc_leaks(quiet, answers) == []
    assert doc_leaks("moves 8000 bytes", answers, question="a tensor of 8000 bytes") == [], \
        "an input of the exercise's own statement"


def test_the_docs_a_workspace_holds_state_no_predict_or_experiment_answer() -> None:
    """Every page `routerlab lab` copies into a workspace (docs/*.md, the workspace README), for
    the answers of every predict and experiment exercise of the catalog (issue 32: fix-3's
    drift was in docs/transfers.md). Where a page must state the fact an exercise asks for, its
    example uses other numbers."""
    from pathlib import Path

    from answer_leaks import doc_leaks, model_answers

    from routerlab.exercises.catalog import Kind, load_catalog
    from routerlab.exercises.learner.lab_notebooks import DOCS_DIR
    from routerlab.exercises.learner.workspace import _README

    root = Path(__file__).resolve().parents[2]
    pages = {f"{DOCS_DIR}/{p.name}": p.read_text("utf-8")
             for p in sorted((root / DOCS_DIR).glob("*.md"))}
    pages["README.md (workspace)"] = _README
    found = [f"{exercise.id} in {page}: {leak}" for exercise in load_catalog()
             if exercise.kind is not Kind.IMPLEMENT
             for page, text in pages.items()
             for leak in doc_leaks(text, model_answers(exercise.id), exercise.statement())]
    assert not found, found


CONSOLE_SAFE = ("transfer", "compare", "validate", "simulate")
"""The commands of a page's console blocks that run here in-process: the model alone, no server,
no peer, no browser (a `--peer`, a `ws://` address, `serve` or `lab` is left out)."""


def _console_lines(text: str) -> list[list[str]]:
    import re
    import shlex

    found = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if not line.startswith("$ routerlab "):
                continue
            words = shlex.split(line[2:], comments=True)[1:]
            if words and words[0] in CONSOLE_SAFE and not any(
                    "ws://" in w or w.startswith("--peer") for w in words):
                found.append(words)
    return found


def _without_timings(text: str) -> str:
    """A table's `ms` cells blanked: a measured time is no printed answer (a compare whose
    native move took 0.62 ms read as quant-6's 0.625 now and then)."""
    lines = text.splitlines()
    header = next((line for line in lines if "┃" in line
                   and "ms" in [c.strip() for c in line.split("┃")]), None)
    if header is None:
        return text
    at = [c.strip() for c in header.split("┃")].index("ms")
    rows = [line.split("│") for line in lines]
    return "\n".join("│".join(cells[:at] + [" " * len(cells[at])] + cells[at + 1:])
                     if len(cells) > at + 1 else "│".join(cells) for cells in rows)


def test_a_timing_cell_is_not_searched_but_the_rest_of_its_row_is() -> None:
    table = ("┃ policy ┃ ms    ┃ × f32 ┃\n"
             "│ native │ 0.625 │ 0.25  │\n")
    cleaned = _without_timings(table)
    assert "0.625" not in cleaned and "0.25" in cleaned and "native" in cleaned
    assert _without_timings("no table 0.625") == "no table 0.625"


def test_console_lines_of_the_docs_print_no_predict_or_experiment_answer() -> None:
    """A console line a page shows is run by a learner: what it prints is searched like the page
    (issue 39: docs/transfers.md's first line ran fix-3's own input and printed all four
    scales)."""
    from pathlib import Path

    from answer_leaks import doc_leaks, model_answers
    from typer.testing import CliRunner

    from routerlab.cli.app import app
    from routerlab.exercises.catalog import Kind, load_catalog
    from routerlab.exercises.learner.lab_notebooks import DOCS_DIR

    root = Path(__file__).resolve().parents[2]
    runner = CliRunner()
    outputs = {}
    for page in sorted((root / DOCS_DIR).glob("*.md")):
        for words in _console_lines(page.read_text("utf-8")):
            done = runner.invoke(app, words, env={"NO_COLOR": "1", "COLUMNS": "160"})
            assert done.exit_code in (0, 1), (page.name, words, done.output)
            outputs[f"{page.name}: routerlab {' '.join(words)}"] = _without_timings(done.output)
    assert any("transfer" in line for line in outputs), "the transfers page's line is run"
    found = [f"{exercise.id} from {line}: {leak}" for exercise in load_catalog()
             if exercise.kind is not Kind.IMPLEMENT
             for line, text in outputs.items()
             for leak in doc_leaks(text, model_answers(exercise.id), exercise.statement())]
    assert not found, found
