"""What a player walks through: scenes with their effective media, spoken lines and choices.

Built either from the live project (the author's play-through) or from a published snapshot (the
read-only share link), so one player serves both. Pure data, no I/O.

Story state comes compiled: each condition and effect parsed and checked against the
story's variables once, here. One that no longer checks (stored before a rule changed) never holds
and sets nothing, as in the story check and the simulation, so a player never fails on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from romergo.story.media_rules import effective_media
from romergo.story.records import CharacterRecord, LineRow
from romergo.story.state.evaluate import VariableType, apply_effects, check_condition, check_effects, holds
from romergo.story.state.expressions import Assignment, ExpressionError, Literal_, Node, Value
from romergo.story.views import ProjectData

NEVER = Literal_(False, 0)
"""What a condition that no longer checks becomes: it never holds."""


@dataclass(frozen=True)
class PlayLine:
    speaker: str | None
    """The character's name; None for narration (or a speaker that no longer exists)."""
    color: str | None
    text: str
    condition: Node | None = None
    """Shown only when this holds; None: always."""


@dataclass(frozen=True)
class PlayChoice:
    label: str
    target_scene_id: str | None
    """None when the target is missing: the player shows the choice but cannot follow it."""
    condition: Node | None = None
    effects: tuple[Assignment, ...] = ()


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
    entry_effects: tuple[Assignment, ...] = ()


@dataclass(frozen=True)
class PlayVariable:
    name: str
    type: VariableType
    initial: Value


@dataclass(frozen=True)
class PlayStory:
    title: str
    scenes: list[PlayScene]
    """In story order: chapter by chapter, scene by scene."""
    variables: list[PlayVariable] = field(default_factory=list)

    def start_state(self) -> dict[str, Value]:
        return {variable.name: variable.initial for variable in self.variables}

    @staticmethod
    def enter(scene: PlayScene, state: Mapping[str, Value]) -> dict[str, Value]:
        return apply_effects(list(scene.entry_effects), state)

    @staticmethod
    def pick(choice: PlayChoice, state: Mapping[str, Value]) -> dict[str, Value]:
        return apply_effects(list(choice.effects), state)

    @staticmethod
    def lines_shown(scene: PlayScene, state: Mapping[str, Value]) -> list[PlayLine]:
        return [line for line in scene.lines if _shows(line.condition, state)]

    @staticmethod
    def choices_shown(scene: PlayScene, state: Mapping[str, Value]) -> list[PlayChoice]:
        return [choice for choice in scene.choices if _shows(choice.condition, state)]

    @property
    def start_scene_id(self) -> str | None:
        return next((scene.id for scene in self.scenes if scene.is_start), None)

    def scene(self, scene_id: str | None) -> PlayScene | None:
        return next((scene for scene in self.scenes if scene.id == scene_id), None)


def from_project(data: ProjectData) -> PlayStory:
    live_assets = {asset.id for asset in data.assets}
    characters = {c.id: c for c in data.characters}
    scene_ids = {scene.id for scene in data.scenes}
    variables = [PlayVariable(v.name, cast(VariableType, v.type), v.initial) for v in data.variables]
    rules = _Compiler({v.name: v.type for v in variables})
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
                    lines=[_play_line(line, characters, rules) for line in data.lines_of(scene.id)],
                    choices=[
                        _choice(c.label, c.target_scene_id, scene_ids, rules, c.condition, c.effects)
                        for c in data.choices_of(scene.id)
                    ],
                    entry_effects=rules.effects(scene.entry_effects),
                )
            )
    return PlayStory(data.project.title, scenes, variables)


def from_snapshot(snapshot: dict[str, Any]) -> PlayStory:
    """The frozen story of `publishing.published_story`; media ids are already the effective ones."""
    characters: dict[str, dict[str, Any]] = snapshot.get("characters", {})
    chapters: list[dict[str, Any]] = snapshot.get("chapters", [])
    scene_ids = {scene["id"] for chapter in chapters for scene in chapter.get("scenes", [])}
    variables = _snapshot_variables(snapshot.get("variables", []))
    rules = _Compiler({v.name: v.type for v in variables})
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
                        rules.condition(line.get("condition")),
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
                        _choice(
                            str(c.get("label", "")),
                            c.get("target_scene_id"),
                            scene_ids,
                            rules,
                            c.get("condition"),
                            c.get("effects"),
                        )
                        for c in scene.get("choices", [])
                    ],
                    entry_effects=rules.effects(scene.get("entry_effects")),
                )
            )
    return PlayStory(str(snapshot.get("title", "")), scenes, variables)


@dataclass(frozen=True)
class _Compiler:
    """Conditions and effects parsed and checked against the story's variables."""

    types: dict[str, VariableType]

    def condition(self, source: object) -> Node | None:
        if not isinstance(source, str) or not source.strip():
            return None
        try:
            return check_condition(source, self.types)
        except ExpressionError:
            return NEVER

    def effects(self, source: object) -> tuple[Assignment, ...]:
        if not isinstance(source, str) or not source.strip():
            return ()
        try:
            return tuple(check_effects(source, self.types))
        except ExpressionError:
            return ()


def _shows(condition: Node | None, state: Mapping[str, Value]) -> bool:
    return condition is None or holds(condition, state)


def _snapshot_variables(found: object) -> list[PlayVariable]:
    variables: list[PlayVariable] = []
    for item in found if isinstance(found, list) else []:
        kind, initial = item.get("type"), item.get("initial")
        if kind in ("flag", "number", "text") and isinstance(initial, bool | int | float | str):
            variables.append(PlayVariable(str(item.get("name")), kind, initial))
    return variables


def _play_line(line: LineRow, characters: dict[str, CharacterRecord], rules: _Compiler) -> PlayLine:
    speaker = characters.get(line.character_id) if line.character_id else None
    return PlayLine(
        speaker.name if speaker else None,
        speaker.color if speaker else None,
        line.text,
        rules.condition(line.condition),
    )


def _choice(
    label: str,
    target_scene_id: str | None,
    scene_ids: set[str],
    rules: _Compiler,
    condition: object = None,
    effects: object = None,
) -> PlayChoice:
    """A choice whose target is gone is still shown, but leads nowhere."""
    return PlayChoice(
        label,
        target_scene_id if target_scene_id in scene_ids else None,
        rules.condition(condition),
        rules.effects(effects),
    )
