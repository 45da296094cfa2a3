"""A predict exercise's answers, read as data from the file's text: nothing in it is executed.

An answer is the value of the last top-level assignment to the part's name (`SERVERS = 3`). It
must be a literal (`ast.literal_eval`: numbers, strings, lists, tuples, sets, dicts, True/False/
None, `...` for "not yet"), or plain arithmetic on numbers (`1.8 / 127`, `2 ** 8`), which a
student writes to show their working. A call, a name, an attribute or a comprehension is not an
answer: it would have to run. How a class is graded (`teacher recheck`); the reply has the shape
the sandbox gives, so the same judge reads it.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import time
from pathlib import Path
from typing import Any

from ...core.base.safe_io import read_bytes
from ..checks.base import PredictSuite, to_data
from ..errors import GradesError

SOURCE_LIMIT = 256 * 1024
"""Bytes of an exercise file read at most: larger is refused, never parsed."""
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
              ast.Pow: operator.pow}
_MAX_EXPONENT = 1024
MAX_ANSWER_BITS = 4096
"""The largest integer an answer's arithmetic may make (or a float's exponent may reach): far
above any answer, far below what would keep the teacher's process busy. `**` and `*` are
bounded by the size of their result before it is computed, so `((10**1024)**1024)**1024` is
refused at once instead of holding the teacher's process for hours."""


class NotData(ValueError):
    """The value is not a literal: reading it would mean running code."""


def read_source(path: Path) -> str:
    """A student's file as text, refused past `SOURCE_LIMIT` bytes. Bytes that are not UTF-8
    are kept as surrogates (`surrogateescape`), so the jail writes back the very bytes handed in
    and Python refuses them there as it would anywhere, in the student's words."""
    data = read_bytes(path, what="submission file", error=GradesError)
    if len(data) > SOURCE_LIMIT:
        raise GradesError(f"{path.name}: {len(data)} bytes, more than the {SOURCE_LIMIT} an "
                          "exercise file may have")
    return data.decode("utf-8", errors="surrogateescape")


def literal_answers(source: str, names: list[str]) -> dict[str, Any]:
    """Per name: its value as plain data, or `{"missing": True}` / `{"todo": True}` /
    `{"not_data": why}`. Raises `NotData` for a file Python cannot read."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise NotData(f"Python cannot read the file ({type(error).__name__})") from None
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id in names:
                found[target.id] = value
    answers: dict[str, Any] = {}
    for name in names:
        if name not in found:
            answers[name] = {"missing": True}
            continue
        try:
            value = _value(found[name])
        except NotData as why:
            answers[name] = {"not_data": str(why)}
            continue
        answers[name] = {"todo": True} if value is Ellipsis else to_data(value)
    return answers


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _value(node.left), _value(node.right)
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right)):
            raise NotData("arithmetic on something that is not a number")
        if isinstance(node.op, ast.Pow) and abs(right) > _MAX_EXPONENT:
            raise NotData("an exponent too large to be an answer")
        if _result_bits(node.op, left, right) > MAX_ANSWER_BITS:
            raise NotData("a number too large to be an answer")
        try:
            return _OPERATORS[type(node.op)](left, right)
        except (ArithmeticError, ValueError) as error:
            raise NotData(str(error)) from None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _value(node.operand)
        if not isinstance(operand, int | float) or isinstance(operand, bool):
            raise NotData("a sign on something that is not a number")
        return -operand if isinstance(node.op, ast.USub) else operand
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        kind = type(node).__name__
        raise NotData(f"a {kind} expression, not a plain value") from None


def _bits(value: int | float) -> int:
    """How many bits the integer part of `value` needs (a float's binary exponent)."""
    if isinstance(value, float):
        return 0 if value == 0 or value != value or value in (float("inf"), float("-inf")) \
            else max(0, math.frexp(value)[1])
    return abs(value).bit_length()


def _result_bits(op: ast.operator, left: int | float, right: int | float) -> int:
    """An upper bound on the bits of `left OP right`, found without computing it."""
    if isinstance(op, ast.Mult):
        return _bits(left) + _bits(right)
    if isinstance(op, ast.Pow) and right > 0:
        return max(_bits(left), 1) * math.ceil(right)
    return max(_bits(left), _bits(right)) + 1


def literal_reply(path: Path, suite: PredictSuite) -> dict[str, Any]:
    """The reply a sandbox would give for a predict file, made without running it."""
    started = time.monotonic()
    names = [part.name for part in suite.parts]
    try:
        answers = literal_answers(read_source(path), names)
    except (NotData, GradesError) as error:
        problem = {"name": "read your answers", "hint": 1,
                   "message": f"your answers cannot be read as data: {error}"}
        lines = [{"problem": problem}, {"done": True}]
    else:
        for name, value in answers.items():
            if isinstance(value, dict) and "not_data" in value:
                answers[name] = {"object": f"{value['not_data']}: write the answer itself (a "
                                           "number, a string, a list...), not code that finds it"}
        lines = [{"answers": answers}, {"done": True, "delegated": []}]
    return {"returncode": 0, "timed_out": False,
            "result": "".join(json.dumps(line) + "\n" for line in lines),
            "result_truncated": False, "output": "", "output_bytes": 0, "stragglers": 0,
            "seconds": time.monotonic() - started}
