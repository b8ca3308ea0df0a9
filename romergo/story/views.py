"""Read models: what pages, tools and the API show. Plain dataclasses over the stored rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from storage.tables import Asset, Chapter, Character, Choice, DialogueLine, Project, Revision, Scene

SlotSource = Literal["scene", "chapter"]


@dataclass(frozen=True)
class ProjectData:
    """Everything of one project except asset bytes, loaded in a handful of queries."""

    project: Project
    chapters: list[Chapter]
    scenes: list[Scene]
    lines: list[DialogueLine]
    choices: list[Choice]
    characters: list[Character]
    assets: list[Asset]

    def scenes_of(self, chapter_id: str) -> list[Scene]:
        return sorted((s for s in self.scenes if s.chapter_id == chapter_id), key=lambda s: s.position)

    def lines_of(self, scene_id: str) -> list[DialogueLine]:
        return sorted(
            (line for line in self.lines if line.scene_id == scene_id), key=lambda line: line.position
        )

    def choices_of(self, scene_id: str) -> list[Choice]:
        return sorted((c for c in self.choices if c.scene_id == scene_id), key=lambda c: c.position)


@dataclass(frozen=True)
class ChapterOutline:
    chapter: Chapter
    scenes: list[Scene]


@dataclass(frozen=True)
class Outline:
    project: Project
    chapters: list[ChapterOutline]
    characters: list[Character]

    def scene_ids(self) -> list[str]:
        return [scene.id for chapter in self.chapters for scene in chapter.scenes]


@dataclass(frozen=True)
class AssetSlot:
    """A scene's effective background or music, and whether it is its own or the chapter's."""

    asset: Asset | None
    source: SlotSource | None


@dataclass(frozen=True)
class LineView:
    line: DialogueLine
    speaker: str | None
    """The character's name; None for narration (or a speaker that no longer exists)."""
    speaker_color: str | None = None


@dataclass(frozen=True)
class ChoiceView:
    choice: Choice
    target_title: str | None
    target_chapter_id: str | None


@dataclass(frozen=True)
class SceneView:
    project: Project
    chapter: Chapter
    scene: Scene
    background: AssetSlot
    music: AssetSlot
    lines: list[LineView]
    choices: list[ChoiceView]
    characters: list[Character] = field(default_factory=list)


@dataclass(frozen=True)
class AssetUse:
    entity_type: Literal["scene", "chapter"]
    entity_id: str
    title: str
    slot: Literal["background", "music"]


@dataclass(frozen=True)
class AssetView:
    asset: Asset
    used_by: list[AssetUse]


@dataclass(frozen=True)
class RevisionView:
    revision: Revision
    title: str
    """A readable name for the entity (from its snapshot), for history lists."""
