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
