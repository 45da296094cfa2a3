"""RouterLab's classroom exercises: small, real pieces of Burn's router model, checked offline.

In a notebook inside a workspace (made by `routerlab exercises init DIR`):

    from routerlab.exercises import check, hint, solution, progress
    check("registry-1")

The terminal twin is `routerlab exercises ...`; both share the workspace's progress file. The
grading logic (catalog, runner, state, grades) lives in this package and knows nothing of the
terminal; see docs/exercises.md.
"""

from .learner.notebook import check, give_up, hint, progress, show, solution

__all__ = ["check", "give_up", "hint", "progress", "show", "solution"]
