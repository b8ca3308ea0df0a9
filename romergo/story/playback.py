"""What a player walks through: scenes with their effective media, spoken lines and choices.

Built either from the live project (the author's play-through) or from a published snapshot (the
read-only share link), so one player serves both. Pure data, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from romergo.story.media_rules import effective_media
from romergo.story.views import LineRow, ProjectData
from storage.tables import Character


@dataclass(frozen=True)
class PlayLine:
    speaker: str | None
    """The character's name; None for narration (or a speaker that no longer exists)."""
    color: str | None
    text: str


@dataclass(frozen=True)
class PlayChoice:
    label: str
    target_scene_id: str | None
    """None when the target is missing: the player shows the choice but cannot follow it."""


@dataclass(frozen=True)
class PlayScene:
    id: str
    title: str
    chapter_title: str
    is_start: bool
    is_ending: bool
    background_asset_id: str | None
    music_asset_id: str | None
    lines: list[PlayLine] = field(default_factory=list)
    choices: list[PlayChoice] = field(default_factory=list)


@dataclass(frozen=True)
class PlayStory:
    title: str
    scenes: list[PlayScene]
    """In story order: chapter by chapter, scene by scene."""

    @property
    def start_scene_id(self) -> str | None:
        return next((scene.id for scene in self.scenes if scene.is_start), None)

    def scene(self, scene_id: str | None) -> PlayScene | None:
        return next((scene for scene in self.scenes if scene.id == scene_id), None)


def from_project(data: ProjectData) -> PlayStory:
    live_assets = {asset.id for asset in data.assets}
    characters = {c.id: c for c in data.characters}
    scene_ids = {scene.id for scene in data.scenes}
    scenes: list[PlayScene] = []
    for chapter in data.chapters_in_order():
        for scene in data.scenes_of(chapter.id):
            scenes.append(
                PlayScene(
                    id=scene.id,
                    title=scene.title,
                    chapter_title=chapter.title,
                    is_start=scene.is_start,
                    is_ending=scene.is_ending,
                    background_asset_id=effective_media(scene, chapter, "background", live_assets).asset_id,
                    music_asset_id=effective_media(scene, chapter, "music", live_assets).asset_id,
                    lines=[_play_line(line, characters) for line in data.lines_of(scene.id)],
                    choices=[
                        _choice(c.label, c.target_scene_id, scene_ids) for c in data.choices_of(scene.id)
                    ],
                )
            )
    return PlayStory(data.project.title, scenes)


def from_snapshot(snapshot: dict[str, Any]) -> PlayStory:
    """The frozen story of `publishing.published_story`; media ids are already the effective ones."""
    characters: dict[str, dict[str, Any]] = snapshot.get("characters", {})
    chapters: list[dict[str, Any]] = snapshot.get("chapters", [])
    scene_ids = {scene["id"] for chapter in chapters for scene in chapter.get("scenes", [])}
    scenes: list[PlayScene] = []
    for chapter in chapters:
        for scene in chapter.get("scenes", []):
            lines = []
            for line in scene.get("lines", []):
                speaker = characters.get(line.get("character_id") or "")
                lines.append(
                    PlayLine(
                        speaker.get("name") if speaker else None,
                        speaker.get("color") if speaker else None,
                        str(line.get("text", "")),
                    )
                )
            scenes.append(
                PlayScene(
                    id=scene["id"],
                    title=scene["title"],
                    chapter_title=chapter.get("title", ""),
                    is_start=bool(scene.get("is_start")),
                    is_ending=bool(scene.get("is_ending")),
                    background_asset_id=scene.get("background_asset_id"),
                    music_asset_id=scene.get("music_asset_id"),
                    lines=lines,
                    choices=[
                        _choice(str(c.get("label", "")), c.get("target_scene_id"), scene_ids)
                        for c in scene.get("choices", [])
                    ],
                )
            )
    return PlayStory(str(snapshot.get("title", "")), scenes)


def _play_line(line: LineRow, characters: dict[str, Character]) -> PlayLine:
    speaker = characters.get(line.character_id) if line.character_id else None
    return PlayLine(speaker.name if speaker else None, speaker.color if speaker else None, line.text)


def _choice(label: str, target_scene_id: str | None, scene_ids: set[str]) -> PlayChoice:
    """A choice whose target is gone is still shown, but leads nowhere."""
    return PlayChoice(label, target_scene_id if target_scene_id in scene_ids else None)
