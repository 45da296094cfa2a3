"""The errors a student or a teacher can cause while working with the exercises.

They are `RouterLabError`s, so the CLI prints them as one readable line (and the notebook shows the
message) instead of a traceback: a missing workspace or a locked solution is a normal situation,
not a bug.
"""

from __future__ import annotations

from ..core import RouterLabError


class ExerciseError(RouterLabError):
    """Base of the exercise face's expected errors."""


class WorkspaceError(ExerciseError):
    """No workspace where one was looked for, or a workspace that cannot be created there."""


class NoWorkspaceError(WorkspaceError):
    """No workspace marker in the folder looked in or above it (the notebook then uses a
    temporary workspace; the terminal says how to make one)."""


class UnknownExerciseError(ExerciseError):
    """An exercise id that the catalog does not have (the message lists the close ones)."""


class LockedError(ExerciseError):
    """A solution asked for before the exercise was passed."""


class CatalogError(ExerciseError):
    """A catalog entry that is malformed: only a teacher or an author can cause this."""


class GradesError(ExerciseError):
    """A folder of exported results that cannot be merged (none found, or none readable)."""
