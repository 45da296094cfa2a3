"""How the `teacher` commands show what their room returned: the lines each prints, kept out of
the command functions so each of those parses, calls one function and renders."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...exercises.teacher.recheck import RecheckOutcome


def say(console: Any, text: str, style: str | None = None) -> None:
    """One line as it is: no markup, no highlighting, no wrapping inside a path."""
    from ...present.palette import rich_style

    console.print(text, style=rich_style(style) if style else None, highlight=False,
                  markup=False, soft_wrap=True)


def warner(console: Any) -> Callable[[str], None]:
    return lambda problem: say(console, f"warning: {problem}", "warn")


def render_recheck(console: Any, outcome: RecheckOutcome) -> None:
    from ...exercises.teacher.gradebook import UNISOLATED_NOTE

    summary = outcome.summary
    if any(r.isolation != "jail" for r in summary.results.values()):
        say(console, UNISOLATED_NOTE, "warn")
    for row in summary.rows:
        shown = f"{row.points:g} points" if row.graded else "no grade"
        say(console, f"{row.student.id}: {shown} ({row.status})")
    out = summary.outputs
    resumed = f" ({summary.resumed} from the journal)" if summary.resumed else ""
    say(console, f"{len(summary.results)} graded in {outcome.seconds:.1f} s{resumed}; grades in "
                 f"{out.csv}, digests in {out.digest} (`cd {outcome.plan.submissions} && "
                 f"sha256sum -c {out.digest.resolve()}`)"
                 + (f", feedback in {out.feedback}" if out.feedback else ""))
    say(console, f"{outcome.pairs} pair{'' if outcome.pairs == 1 else 's'} of similar files or "
                 f"answers in {outcome.similar}"
                 + (f"; each student graded on their own variant (course "
                    f"{outcome.variants_course})" if outcome.variants_course else ""))
    if outcome.gradebook is not None:
        say(console, f"recorded in the gradebook {outcome.gradebook}")
    else:
        say(console, outcome.gradebook_note, "warn")
