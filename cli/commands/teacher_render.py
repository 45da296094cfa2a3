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
                 f"answers in {outcome.similar}; {outcome.course}")
    if outcome.gradebook is not None:
        say(console, f"recorded in the gradebook {outcome.gradebook}")
    else:
        say(console, outcome.gradebook_note, "warn")
    failed = outcome.jail_failed
    if failed:
        say(console, f"error: {len(failed)} not graded because the grading jail failed "
                     f"({', '.join(failed[:5])}{', …' if len(failed) > 5 else ''}); fix it and "
                     "rerun with --resume", "warn")


def render_lint(outcome: Any, plain: bool, json_out: bool) -> None:
    """`teacher lint`'s table (or JSON): each exercise, its checks, the variants proved, the
    share of mutants its checks kill; a whole catalog under the mutation goal is said."""
    from ...core import TableView
    from ...exercises.authoring.mutation import GOAL_ALL
    from ..render import make_console, print_json, to_rich

    results, overall = outcome.results, outcome.mutation_score
    if json_out:
        print_json({"seconds": round(outcome.seconds, 2), "ok": outcome.ok,
                    "mutation_score": overall,
                    "exercises": [{"id": r.exercise.id, "ok": r.ok, "problems": r.problems,
                                   "checks": r.checks, "hidden": r.hidden,
                                   "variants_proved": r.variants,
                                   "mutation_score": r.mutation and r.mutation.score}
                                  for r in results]})
        return
    rows = [[r.exercise.id, r.exercise.kind.value, r.checks, r.hidden,
             r.variants, _mutants(r), f"{r.seconds:.1f} s",
             "ok" if r.ok else "; ".join(r.problems)] for r in results]
    bad = sum(not r.ok for r in results)
    console = make_console(plain)
    console.print(to_rich(TableView(
        "Exercise catalog lint", ["id", "kind", "checks", "hidden", "variants",
                                  "mutants killed", "time", "verdict"], rows,
        caption=f"{len(results) - bad}/{len(results)} exercises ok in {outcome.seconds:.1f} s"
                + ("" if overall is None else f"; mutants killed: {overall:.2f} overall"),
        styles={i: "added" if r.ok else "error" for i, r in enumerate(results)})))
    if outcome.below_goal:
        say(console, f"the checks kill {overall:.2f} of the mutants over every implement "
                     f"exercise; the goal is {GOAL_ALL}")


def _mutants(result: Any) -> str:
    mutation = result.mutation
    if mutation is None:
        return "-"
    return (f"{mutation.score:.2f} ({len(mutation.killed)}/"
            f"{len(mutation.killed) + len(mutation.survived)})")


def collect_reporter(console: Any) -> Callable[[int, int, Any], None]:
    """`teacher collect`'s progress: a line per student (copied, kept, or why not) and a bar."""
    from ..progress import ProgressLine

    line: ProgressLine | None = None

    def report(count: int, total: int, done: Any) -> None:
        nonlocal line
        line = line or ProgressLine(total, "students collected")
        if done.problem:
            say(console, f"{done.student}: not collected: {done.problem}", "warn")
        elif done.skipped:
            say(console, f"{done.student}: unchanged since the last collect, kept")
        else:
            say(console, f"{done.student}: {len(done.files)} files -> {done.folder}")
        line.step(done.student)

    return report
