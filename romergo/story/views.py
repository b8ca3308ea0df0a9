"""Read models: what pages, tools and the API show. Plain dataclasses over the story's records."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, TypeVar

from romergo.story.media_rules import SlotSource
from romergo.story.records import (
    AssetRecord,
    ChapterRecord,
    CharacterRecord,
    ChoiceRecord,
    ChoiceWithTarget,
    LineRecord,
    LineRow,
    ProjectRecord,
    SceneRecord,
    VariableRecord,
)
from romergo.story.roles import Role

Row = TypeVar("Row", SceneRecord, LineRow, ChoiceRecord)


@dataclass(frozen=True)
class ProjectData:
    """Everything of one project except asset bytes, loaded in a handful of queries.

    `assets` holds the live assets only. The `*_of` lookups use indexes built once, on first use.
    """

    project: ProjectRecord
    chapters: list[ChapterRecord]
    scenes: list[SceneRecord]
    lines: list[LineRow]
    """Empty, like `choices`, when only the project's shape was loaded (`shape_only`)."""
    choices: list[ChoiceRecord]
    characters: list[CharacterRecord]
    assets: list[AssetRecord]
    variables: list[VariableRecord] = field(default_factory=list)
    """The story's variables, by name; empty when only the shape was loaded."""

    def chapters_in_order(self) -> list[ChapterRecord]:
        return sorted(self.chapters, key=lambda c: c.position)

    def chapter_of(self, scene: SceneRecord) -> ChapterRecord | None:
        return self._chapters.get(scene.chapter_id)

    def scenes_of(self, chapter_id: str) -> list[SceneRecord]:
        return list(self._scenes_by_chapter.get(chapter_id, ()))

    def scenes_in_order(self) -> list[SceneRecord]:
        """Chapter by chapter, scene by scene (scenes of a vanished chapter sort as position 0)."""
        order = {chapter.id: chapter.position for chapter in self.chapters}
        return sorted(self.scenes, key=lambda s: (order.get(s.chapter_id, 0), s.position))

    def lines_of(self, scene_id: str) -> list[LineRow]:
        return list(self._lines_by_scene.get(scene_id, ()))

    def choices_of(self, scene_id: str) -> list[ChoiceRecord]:
        return list(self._choices_by_scene.get(scene_id, ()))

    @cached_property
    def _chapters(self) -> dict[str, ChapterRecord]:
        return {chapter.id: chapter for chapter in self.chapters}

    @cached_property
    def _scenes_by_chapter(self) -> dict[str, list[SceneRecord]]:
        return _ordered_groups(self.scenes, lambda scene: scene.chapter_id)

    @cached_property
    def _lines_by_scene(self) -> dict[str, list[LineRow]]:
        return _ordered_groups(self.lines, lambda line: line.scene_id)

    @cached_property
    def _choices_by_scene(self) -> dict[str, list[ChoiceRecord]]:
        return _ordered_groups(self.choices, lambda choice: choice.scene_id)


@dataclass(frozen=True)
class ChapterOutline:
    chapter: ChapterRecord
    scenes: list[SceneRecord]
    revisions: dict[str, int] = field(default_factory=dict)
    """The chapter's and its scenes' revisions by id (`romergo.story.revisions`; missing: 0)."""


@dataclass(frozen=True)
class Outline:
    project: ProjectRecord
    chapters: list[ChapterOutline]
    characters: list[CharacterRecord]
    revisions: dict[str, int] = field(default_factory=dict)
    """Chapters', scenes' and characters' revisions by id (`romergo.story.revisions`; missing: 0)."""
    role: Role | None = None
    """The reader's role in the project, when read on their behalf."""

    def scene_ids(self) -> list[str]:
        return [scene.id for chapter in self.chapters for scene in chapter.scenes]

    @property
    def scene_count(self) -> int:
        return sum(len(chapter.scenes) for chapter in self.chapters)


@dataclass(frozen=True)
class AssetSlot:
    """A scene's effective background or music, and whether it is its own or the chapter's."""

    asset: AssetRecord | None
    source: SlotSource | None


@dataclass(frozen=True)
class LineView:
    line: LineRecord
    speaker: str | None
    """The character's name; None for narration (or a speaker that no longer exists)."""
    speaker_color: str | None = None


@dataclass(frozen=True)
class SceneView:
    project: ProjectRecord
    chapter: ChapterRecord
    scene: SceneRecord
    background: AssetSlot
    music: AssetSlot
    lines: list[LineView]
    choices: list[ChoiceWithTarget]
    characters: list[CharacterRecord] = field(default_factory=list)
    revisions: dict[str, int] = field(default_factory=dict)
    """The revision of the scene (which covers its choices, media and entry effects) and of each
    line, by id (`romergo.story.revisions`; missing: 0)."""


@dataclass(frozen=True)
class AssetUse:
    entity_type: Literal["scene", "chapter"]
    entity_id: str
    title: str
    slot: Literal["background", "music"]


@dataclass(frozen=True)
class AssetView:
    asset: AssetRecord
    used_by: list[AssetUse]


def _ordered_groups(rows: Iterable[Row], parent: Callable[[Row], str]) -> dict[str, list[Row]]:
    groups: dict[str, list[Row]] = {}
    for row in sorted(rows, key=lambda r: r.position):
        groups.setdefault(parent(row), []).append(row)
    return groups
