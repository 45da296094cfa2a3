"""Points: what one check report earns, and how a gradebook writes a number of points.

Both the learner's own export (`routerlab.exercises.learner.export`) and the teacher's regrade
(`routerlab.exercises.teacher.classroom`) score a report the same way, so the rule lives once,
here, below both.
"""

from __future__ import annotations

from ..catalog import Exercise, Kind
from ..report import CheckReport


def score(exercise: Exercise, report: CheckReport, per_part: bool = False) -> float:
    """The points a fresh check earns: all of them for a pass; with `partial_credit`, once every
    visible check passes, a share per passing hidden check; otherwise none.

    `per_part` (class mode's default): a predict exercise earns a share per part answered right,
    once every answer is well formed."""
    if report.passed:
        return float(exercise.points)
    if report.problem is not None:
        return 0.0
    if per_part and exercise.kind is Kind.PREDICT and report.outcomes:
        parts = report.outcomes[1:]
        if not report.outcomes[0].ok or not parts:
            return 0.0
        return round(exercise.points * sum(o.ok for o in parts) / len(parts), 2)
    if not exercise.partial_credit:
        return 0.0
    visible = [o for o in report.outcomes if not o.hidden]
    hidden = [o for o in report.outcomes if o.hidden]
    if not hidden or not all(o.ok for o in visible):
        return 0.0
    return round(exercise.points * sum(o.ok for o in hidden) / len(hidden), 2)


def grade_number(value: float) -> int | float:
    """Points as a gradebook shows them: a whole number bare, anything else to 2 places."""
    return int(value) if float(value).is_integer() else round(value, 2)
