"""The room's reach: which chapters of the project a channel lets its agents see and touch.

A room covers the whole project (`scope` None) or chosen chapters, and with them their scenes,
lines and choices. Characters and the asset library stay readable project-wide; changing a
character or an asset needs every chapter that uses it inside the room. The guard checks the
reach of every call before the room's permissions (`calls`); lists read by an actor with a reach
(`Actor.reach`) leave out what lies outside it, and what was recorded is shown as the reach is
now (`room_view`). The same words describe the room to the owner (panel header) and to the agent
(start prompt, join result): chapter numbers, never titles.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from romergo.channels.vocabulary import PERMISSIONS, ConfirmationMode
from romergo.common.errors import RomergoError, invalid
from romergo.story.kinds import LABELS, EntityType, reached

MAX_SCOPE_CHAPTERS = 500
TargetKind = EntityType | Literal["command"]
"""What a tool call names: an entity of the story, or a command."""
INSIDE_KINDS: tuple[str, ...] = reached(shared=False)
"""Entities that lie in one chapter: the room must cover it, for reads as for changes."""
SHARED_KINDS: tuple[str, ...] = reached(shared=True)
"""Readable project-wide; a change needs every chapter that uses them inside the room."""
MODE_WORDS = {
    ConfirmationMode.NONE: "no confirmations",
    ConfirmationMode.PUBLISH_AND_DELETE: "confirm publish and delete",
    ConfirmationMode.EVERY_CHANGE: "confirm every change",
}


@dataclass(frozen=True)
class Target:
    """An entity a tool call names: the one it works on, or another it needs (a move's chapter)."""

    kind: TargetKind
    entity_id: str


class Locator(Protocol):
    """Where entities lie in their project (the story side answers; the guard asks)."""

    async def chapters_of(self, user_id: str, kind: TargetKind, entity_id: str) -> frozenset[str]:
        """The chapters holding the entity, or (characters, assets) using it."""
        ...


def scope_chapters(scope: dict[str, Any] | None) -> frozenset[str] | None:
    """The chapter ids a stored scope covers; None: the whole project."""
    if not scope:
        return None
    return frozenset(str(chapter_id) for chapter_id in scope.get("chapter_ids", ()))


async def check_reach(
    reach: frozenset[str] | None,
    targets: Sequence[Target],
    category: str,
    whole_project: bool,
    locator: Locator,
    user_id: str,
) -> None:
    """Refuse with `out_of_scope` (naming only the id the agent sent) what the room does not cover."""
    if reach is None:
        return
    if whole_project:
        raise RomergoError(
            "out_of_scope",
            "This room covers only some chapters; this action works on the whole project. "
            "Tell the owner: they can widen the room under Channel settings.",
        )
    for target in targets:
        if target.kind in INSIDE_KINDS or (target.kind in SHARED_KINDS and category != "read"):
            used = await locator.chapters_of(user_id, target.kind, target.entity_id)
            if not used <= reach:
                raise _outside(target)


def clean_scope(value: object, project_chapters: Sequence[str]) -> dict[str, Any] | None:
    """A scope from the owner (None, a list of chapter ids, or `{chapter_ids: [...]}`), checked
    against the project's chapters; returns what is stored."""
    if value is None:
        return None
    if isinstance(value, dict):
        extra = set(value) - {"chapter_ids"}
        if extra:
            raise invalid(f"Unknown scope field {sorted(extra)[0]!r}; a scope is {{chapter_ids: [...]}}.")
        value = value.get("chapter_ids")
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise invalid("scope.chapter_ids must be a non-empty list of chapter ids (or scope null).")
    if len(value) > MAX_SCOPE_CHAPTERS:
        raise invalid(f"A scope names at most {MAX_SCOPE_CHAPTERS} chapters.")
    known = set(project_chapters)
    unknown = next((chapter_id for chapter_id in value if chapter_id not in known), None)
    if unknown is not None:
        raise RomergoError("not_found", f'Chapter "{unknown[:64]}" does not exist in this project.')
    ordered = [chapter_id for chapter_id in project_chapters if chapter_id in set(value)]
    return {"chapter_ids": ordered}


def describe_reach(
    scope: dict[str, Any] | None,
    chapters_in_order: Sequence[str],
    permissions: dict[str, bool] | None = None,
    confirmation_mode: str | None = None,
) -> str:
    """The room in plain words: "Chapters 2–3, read + edit + media, confirm publish and delete"."""
    parts = [chapters_words(scope, chapters_in_order)]
    if permissions is not None:
        allowed = [name for name in PERMISSIONS if permissions.get(name)]
        parts.append(" + ".join(allowed) if allowed else "nothing allowed")
    if confirmation_mode is not None:
        parts.append(MODE_WORDS.get(ConfirmationMode(confirmation_mode), "no confirmations"))
    return ", ".join(parts)


def chapters_words(scope: dict[str, Any] | None, chapters_in_order: Sequence[str]) -> str:
    """ "Whole project", "Chapter 2", "Chapters 2–4", "Chapters 1, 3–4" (numbers in story order)."""
    covered = scope_chapters(scope)
    if covered is None:
        return "Whole project"
    numbers = [number for number, chapter_id in enumerate(chapters_in_order, 1) if chapter_id in covered]
    if not numbers:
        return "No chapters (the room's chapters were deleted)"
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    words = ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}" for run in runs)
    return f"Chapter {words}" if len(numbers) == 1 else f"Chapters {words}"


def _outside(target: Target) -> RomergoError:
    kind = LABELS.get(target.kind, "This entity")
    where = "is used outside" if target.kind in SHARED_KINDS else "lies outside"
    return RomergoError(
        "out_of_scope",
        f'{kind} "{target.entity_id[:64]}" {where} the chapters this room covers. '
        "Do not work around it: tell the owner, who can widen the room under Channel settings.",
    )
