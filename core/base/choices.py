"""`Choice`: an enum whose values are the words people type.

Dtypes, profiles, paths, policies, calibrations and arrival orders are all chosen by name on the
command line and in scenario files. They share one way to read a name (any case, surrounding
spaces ignored) and one error: a single line naming what was unknown and every word that exists,
raised as the error class the subclass asks for.

    class Path(Choice, noun="transfer path", error=DeviceError):
        SAME = "same"
"""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar, Self

from .errors import RouterLabError


class IdentityHashEnum(Enum):
    """An enum hashed by identity. `Enum.__hash__` is a Python function (`hash(self._name_)`),
    and enums key the caches every op and move consults (plans, schemes, storages): hashing by
    identity is a C call. It agrees with equality, which for an enum member is identity."""

    __hash__ = object.__hash__


class Choice(IdentityHashEnum):
    """Base of the named enums; the value is the spelling in files and on the command line."""

    # Declared without a value (an assignment here would make them members); each subclass gets
    # its own in `__init_subclass__`.
    _noun_: ClassVar[str]
    _error_: ClassVar[type[RouterLabError]]

    def __init_subclass__(cls, *, noun: str = "value", error: type[RouterLabError] = RouterLabError,
                          **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._noun_ = noun
        cls._error_ = error

    def __str__(self) -> str:
        return str(self.value)

    @classmethod
    def parse(cls, word: Self | str) -> Self:
        """`"Local "` → `Path.LOCAL`; an unknown word lists the ones that exist."""
        if isinstance(word, cls):
            return word
        try:
            return cls(str(word).strip().lower())
        except ValueError:
            known = ", ".join(str(c.value) for c in cls)
            raise cls._error_(f"unknown {cls._noun_} {word!r}; expected one of: {known}") from None
