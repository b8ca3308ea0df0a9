"""What the domain tools share: argument types, annotations, and the entities they return.

Modifying tools return the entity they created or changed (`{entity_type, id, ...}`, CONTRACT.md
§1.2) inside the envelope, in the core's entity shapes (`romergo.story.shapes`, re-exported here);
delete tools return `{entity_type, id, deleted: true}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar

from mcp.types import ToolAnnotations
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    StrictBool,
    StrictInt,
    model_serializer,
)

from romergo.common.actors import Actor
from romergo.common.clock import iso
from romergo.story.based_on import replaced_by_this_call
from romergo.story.revisions import RevisionKey
from romergo.story.shapes import (
    AssetEntity,
    ChapterEntity,
    CharacterEntity,
    ChoiceEntity,
    LineEntity,
    ProjectEntity,
    SceneEntity,
    VariableEntity,
)

__all__ = [
    "AssetEntity",
    "ChapterEntity",
    "CharacterEntity",
    "ChoiceEntity",
    "LineEntity",
    "ProjectEntity",
    "SceneEntity",
    "VariableEntity",
]

LIMITED_ROOM = (
    "This room covers only some chapters of the project: what lies outside them is left out. "
    "Tell the owner if the command needs more; they can widen the room under Channel settings."
)


class RoomListing(BaseModel):
    """A list that leaves out what a limited room does not cover, and then says so in `room`
    (absent when the room covers the whole project)."""

    room: Annotated[
        str | None,
        Field(description="Set when the room covers only some chapters: the list leaves the rest out."),
    ] = None

    @model_serializer(mode="wrap")
    def _without_empty_room(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.room is None:
            data.pop("room", None)
        return data


def room_note(actor: Actor) -> str | None:
    """The note a list carries when the agent's room is limited to some chapters."""
    return LIMITED_ROOM if actor.reach is not None else None


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
ExpectedRevision = Annotated[
    StrictInt | None,
    Field(
        ge=0,
        description="The revision you read (the entity's `revision`; for choices, media and entry "
        "effects the scene's). If it changed since, fields only the other side changed are kept, and "
        "a field both changed fails with [conflict] (current values, revision, who), writing "
        "nothing. null: write without checking.",
    ),
]
Page = Annotated[
    str | None,
    Field(description="The next_page value of an earlier, truncated result of this call. Omit it at first."),
]
PageSize = Annotated[
    StrictInt | None,
    Field(
        description=(
            "The largest page, in characters (counted as UTF-8 bytes) of each form of the result. "
            "Default 10,000, which every common agent harness shows whole; from 2,000 to 60,000 "
            "(a value outside is clamped and page_note says so). Ask for more only if your harness "
            "shows longer tool results whole."
        )
    ),
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


Revision = Annotated[
    int,
    Field(
        description="The entity's revision (0: never changed since it was made or imported). Pass "
        "it as expected_revision when you change the entity."
    ),
]


class SceneItem(BaseModel):
    """A scene as outlines and chapters list it."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    title: str
    position: int
    is_start: bool
    is_ending: bool
    revision: Revision = 0

    @classmethod
    def of(cls, scene: Any, revisions: Mapping[str, int]) -> SceneItem:
        return cls.model_validate(scene).model_copy(update={"revision": revisions.get(scene.id, 0)})


# What a write returns: the entity as its own transaction left it, with the revision it ended at.


class ReplacedNewerChange(BaseModel):
    by: str = Field(description='Who made the change: "author", or "agent <client_id>".')
    command_id: str | None = Field(description="The command it was made for, if any.")
    at: str = Field(description="When it was made (UTC).")
    fields: list[str] = Field(description="The fields this write replaced.")


class Replacing(BaseModel):
    replaced_newer_change: ReplacedNewerChange | None = Field(
        default=None,
        description="Present when this write (made without expected_revision) replaced a change "
        "someone made after you last read the entity: read it again, and tell the owner if the "
        "change you replaced mattered.",
    )

    @model_serializer(mode="wrap")
    def _without_nothing_replaced(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.replaced_newer_change is None:
            data.pop("replaced_newer_change", None)
        return data


class RevisedScene(SceneEntity, Replacing):
    revision: Revision


class RevisedLine(LineEntity, Replacing):
    revision: Revision


class RevisedChapter(ChapterEntity, Replacing):
    revision: Revision


class RevisedCharacter(CharacterEntity, Replacing):
    revision: Revision


class RevisedVariable(VariableEntity, Replacing):
    revision: Revision


R = TypeVar("R", bound=BaseModel)


async def revised(
    call: Any, model: type[R], entity_type: str, row: Any, written: Mapping[RevisionKey, int]
) -> R:
    """`row` read into `model`, with the revision its write ended at; a write that changed nothing
    wrote no revision, so then the entity's newest one is read."""
    number = written.get((entity_type, row.id))
    if number is None:
        found = await call.services.reads.revisions(call.actor, row.project_id, (entity_type,))
        number = found.get(row.id, 0)
    told = ("entity_type", "revision", "replaced_newer_change")
    fields = {name: getattr(row, name) for name in model.model_fields if name not in told}
    replaced = replaced_newer_change(entity_type, row.id)
    return model.model_validate({**fields, "revision": number, "replaced_newer_change": replaced})


def replaced_newer_change(entity_type: str, entity_id: str) -> ReplacedNewerChange | None:
    """What this call's write of the entity replaced of a change made after the agent's last read."""
    found = replaced_by_this_call(entity_type, entity_id)
    if found is None:
        return None
    by = found.by
    return ReplacedNewerChange(
        by=by.who,
        command_id=by.command_id,
        at=iso(by.at),
        fields=list(found.fields),
    )


class Deleted(BaseModel):
    entity_type: str
    id: str
    deleted: Literal[True] = True
