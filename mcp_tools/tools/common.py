"""What the domain tools share: argument types, annotations, and the entities they return.

Modifying tools return the entity they created or changed (`{entity_type, id, ...}`, CONTRACT.md
§1.2) inside the envelope; delete tools return `{entity_type, id, deleted: true}`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field, StrictBool, StrictInt

from romergo.entities import Asset, Chapter, Character, Choice, DialogueLine, Project, Scene

# -- arguments --------------------------------------------------------------------------------------

CommandId = Annotated[
    str | None,
    Field(
        description=(
            "The command this change is for (from romergo_wait_for_builder_command). May be "
            "omitted when you hold exactly one unfinished command on this project."
        )
    ),
]
Page = Annotated[
    str | None,
    Field(description="The next_page value of an earlier, truncated result of this call. Omit it at first."),
]
Position = Annotated[
    StrictInt | None,
    Field(ge=0, description="0-based place in the list; null (the default) puts it at the end."),
]
NewPosition = Annotated[StrictInt, Field(ge=0, description="0-based place in the list (clamped to its end).")]
OptionalFlag = Annotated[StrictBool | None, Field(description="true or false; null leaves it unchanged.")]


ProjectId = Annotated[str, Field(description="The project's id (from romergo_list_projects).")]
ChapterId = Annotated[str, Field(description="The chapter's id (from romergo_get_project_outline).")]
SceneId = Annotated[
    str, Field(description="The scene's id (from romergo_get_project_outline or romergo_get_chapter).")
]
LineId = Annotated[str, Field(description="The dialogue line's id (from romergo_get_scene).")]
CharacterId = Annotated[str, Field(description="The character's id (from romergo_get_project_outline).")]
AssetId = Annotated[str, Field(description="The asset's id (from romergo_search_assets).")]


# -- annotations ------------------------------------------------------------------------------------

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
ADDS = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
"""Creates something new; calling again creates another one."""
UPDATES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
"""Changes the fields it is given (each change is a revision with its before and after)."""
REPLACES = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)
"""Removes or replaces things the call does not restate (deletes, replacing a scene's choices)."""


# -- results ----------------------------------------------------------------------------------------


class ProjectEntity(BaseModel):
    entity_type: Literal["project"] = "project"
    id: str
    title: str
    published: bool


class ChapterEntity(BaseModel):
    entity_type: Literal["chapter"] = "chapter"
    id: str
    project_id: str
    title: str
    position: int
    music_asset_id: str | None
    background_asset_id: str | None


class SceneEntity(BaseModel):
    entity_type: Literal["scene"] = "scene"
    id: str
    chapter_id: str
    title: str
    position: int
    is_start: bool
    is_ending: bool
    background_asset_id: str | None
    music_asset_id: str | None


class LineEntity(BaseModel):
    entity_type: Literal["dialogue_line"] = "dialogue_line"
    id: str
    scene_id: str
    position: int
    character_id: str | None
    text: str


class ChoiceEntity(BaseModel):
    entity_type: Literal["choice"] = "choice"
    id: str
    position: int
    label: str
    target_scene_id: str | None


class CharacterEntity(BaseModel):
    entity_type: Literal["character"] = "character"
    id: str
    project_id: str
    name: str
    color: str


class AssetEntity(BaseModel):
    entity_type: Literal["asset"] = "asset"
    id: str
    project_id: str
    kind: str
    name: str
    tags: list[str]
    mime: str
    size: int


class SceneItem(BaseModel):
    """A scene as outlines and chapters list it."""

    id: str
    title: str
    position: int
    is_start: bool
    is_ending: bool


class Deleted(BaseModel):
    entity_type: str
    id: str
    deleted: Literal[True] = True


def project_entity(row: Project) -> ProjectEntity:
    return ProjectEntity(id=row.id, title=row.title, published=row.published)


def chapter_entity(row: Chapter) -> ChapterEntity:
    return ChapterEntity(
        id=row.id,
        project_id=row.project_id,
        title=row.title,
        position=row.position,
        music_asset_id=row.music_asset_id,
        background_asset_id=row.background_asset_id,
    )


def scene_entity(row: Scene) -> SceneEntity:
    return SceneEntity(
        id=row.id,
        chapter_id=row.chapter_id,
        title=row.title,
        position=row.position,
        is_start=row.is_start,
        is_ending=row.is_ending,
        background_asset_id=row.background_asset_id,
        music_asset_id=row.music_asset_id,
    )


def scene_item(row: Scene) -> SceneItem:
    return SceneItem(
        id=row.id, title=row.title, position=row.position, is_start=row.is_start, is_ending=row.is_ending
    )


def line_entity(row: DialogueLine) -> LineEntity:
    return LineEntity(
        id=row.id, scene_id=row.scene_id, position=row.position, character_id=row.character_id, text=row.text
    )


def choice_entity(row: Choice) -> ChoiceEntity:
    return ChoiceEntity(
        id=row.id, position=row.position, label=row.label, target_scene_id=row.target_scene_id
    )


def character_entity(row: Character) -> CharacterEntity:
    return CharacterEntity(id=row.id, project_id=row.project_id, name=row.name, color=row.color)


def asset_entity(row: Asset) -> AssetEntity:
    return AssetEntity(
        id=row.id,
        project_id=row.project_id,
        kind=row.kind,
        name=row.name,
        tags=list(row.tags),
        mime=row.mime,
        size=row.size,
    )
