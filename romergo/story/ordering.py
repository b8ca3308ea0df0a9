"""One step up or down in the story outline: what the editor's move buttons and Alt+arrow keys do.

A scene moved past the top of its chapter lands at the end of the previous chapter, and past the
bottom at the start of the next one, so every scene can reach every place one step at a time.
Pure functions over an outline; the caller hands the answer to `move_scene` / `move_chapter`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from romergo.story.views import Outline

Direction = Literal["up", "down"]


@dataclass(frozen=True)
class ScenePlace:
    chapter_id: str
    position: int


def scene_step(outline: Outline, scene_id: str, direction: Direction) -> ScenePlace | None:
    """Where the scene goes one step `direction`; None at the very top or bottom (or unknown id)."""
    chapters = outline.chapters
    for index, entry in enumerate(chapters):
        ids = [scene.id for scene in entry.scenes]
        if scene_id not in ids:
            continue
        position = ids.index(scene_id)
        if direction == "up":
            if position > 0:
                return ScenePlace(entry.chapter.id, position - 1)
            if index > 0:
                previous = chapters[index - 1]
                return ScenePlace(previous.chapter.id, len(previous.scenes))
            return None
        if position < len(ids) - 1:
            return ScenePlace(entry.chapter.id, position + 1)
        if index < len(chapters) - 1:
            return ScenePlace(chapters[index + 1].chapter.id, 0)
        return None
    return None


def list_step(ids: list[str], item_id: str, direction: Direction) -> int | None:
    """The new position of `item_id` one step `direction` in a flat list; None if it cannot move."""
    if item_id not in ids:
        return None
    position = ids.index(item_id) + (-1 if direction == "up" else 1)
    return position if 0 <= position < len(ids) else None
