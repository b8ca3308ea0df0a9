"""The public shape of each story entity: one pydantic model per entity, read from its row.

Every model validates straight from the stored row (`from_attributes`), so a field is named and
typed once. The MCP tools return these models as they are (CONTRACT.md §1.2: `{entity_type, id,
...}`); a revision stores a `*Snapshot` of them (`romergo.story.snapshots`), which drops
`entity_type` (the revision row says it) and adds what undo needs beyond the public shape.

No docstrings on the entity models: pydantic would put them into the tools' output schemas,
which agents already cache.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field


class Shape(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class ProjectEntity(Shape):
    entity_type: Literal["project"] = "project"
    id: str
    title: str
    published: bool


class ChapterEntity(Shape):
    entity_type: Literal["chapter"] = "chapter"
    id: str
    project_id: str
    title: str
    position: int
    music_asset_id: str | None
    background_asset_id: str | None


class SceneEntity(Shape):
    entity_type: Literal["scene"] = "scene"
    id: str
    chapter_id: str
    title: str
    position: int
    is_start: bool
    is_ending: bool
    background_asset_id: str | None
    music_asset_id: str | None
    entry_effects: str | None = None


class LineEntity(Shape):
    entity_type: Literal["dialogue_line"] = "dialogue_line"
    id: str
    scene_id: str
    position: int
    character_id: str | None
    text: str
    condition: str | None = None


class ChoiceEntity(Shape):
    entity_type: Literal["choice"] = "choice"
    id: str
    position: int
    label: str
    target_scene_id: str | None
    condition: str | None = None
    effects: str | None = None


class VariableEntity(Shape):
    entity_type: Literal["variable"] = "variable"
    id: str
    project_id: str
    name: str
    type: Literal["flag", "number", "text"]
    initial: bool | int | float | str
    description: str


class CharacterEntity(Shape):
    entity_type: Literal["character"] = "character"
    id: str
    project_id: str
    name: str
    color: str


class AssetEntity(Shape):
    entity_type: Literal["asset"] = "asset"
    id: str
    project_id: str
    kind: str
    name: str
    tags: list[str]
    mime: str
    size: int


# -- what a revision stores beyond the public shape ---------------------------------------------


class ProjectSnapshot(ProjectEntity):
    share_id: str | None


class SceneSnapshot(SceneEntity):
    project_id: str


class AssetSnapshot(AssetEntity):
    sha256: str
    deleted_at: datetime | None = Field(default=None, exclude=True)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None


# Story state added these; a revision leaves them out while unset, so the snapshots of
# a story without state read exactly as they always have, and older revisions compare equal.
STATE_FIELDS = frozenset({"condition", "effects", "entry_effects"})


def snapshot(entity: Shape) -> dict[str, Any]:
    """The plain dict a revision stores as before/after: the shape without its `entity_type`."""
    data = entity.model_dump(mode="json", exclude={"entity_type"})
    return {key: value for key, value in data.items() if value is not None or key not in STATE_FIELDS}
