"""Siblings in order (a scene's lines, a chapter's scenes, a project's chapters), as records:
what a move, an insertion or a removal makes of their positions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol, TypeVar


class Positioned(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def position(self) -> int: ...


Sibling = TypeVar("Sibling", bound=Positioned)


def placed(siblings: Sequence[Sibling], record: Sibling, position: int | None) -> list[Sibling]:
    """`record` put among `siblings` at `position` (clamped; None = at the end), and every one
    numbered 0..n-1 in that order."""
    others = [sibling for sibling in siblings if sibling.id != record.id]
    index = len(others) if position is None else max(0, min(position, len(others)))
    return renumbered([*others[:index], record, *others[index:]])


def renumbered(records: Sequence[Sibling]) -> list[Sibling]:
    return [
        record if record.position == index else replace(record, position=index)  # type: ignore[type-var]
        for index, record in enumerate(records)
    ]


def moved(before: Sequence[Sibling], after: Sequence[Sibling]) -> list[Sibling]:
    """The records of `after` whose position differs from the one they had in `before` (the new
    ones too): what is to be written."""
    had = {record.id: record.position for record in before}
    return [record for record in after if had.get(record.id) != record.position]
