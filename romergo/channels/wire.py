"""The JSON shapes of CONTRACT.md §4 and §6 for channels, commands and events.

One place for the contract's field names, used by the JSON API, the MCP tools and the panel.
Each shape is a pydantic model read straight from the core's view (`from_attributes`); the
functions below give the JSON the contract shows (times as ISO 8601 UTC with a `Z`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, PlainSerializer, SerializerFunctionWrapHandler, model_serializer

from romergo.channels.confirmations import ConfirmationView
from romergo.channels.models import ChannelView, CommandView, EventView, MemberView
from romergo.common.clock import iso

V = TypeVar("V")
Moment = Annotated[datetime, PlainSerializer(iso, return_type=str)]
MaybeMoment = Annotated[datetime | None, PlainSerializer(iso, return_type=str | None)]


class Wire(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class Member(Wire):
    client_id: str
    agent_name: str
    joined_at: Moment
    left_at: MaybeMoment
    last_seen_at: Moment
    polling: bool
    active_command_id: str | None
    left_reason: str | None = None


class Channel(Wire):
    channel_id: str
    project_id: str
    permissions: dict[str, bool]
    confirmation_mode: str
    state: str
    expires_at: Moment
    cursor: int
    members: list[Member]
    scope: dict[str, Any] | None = None
    code: str | None = None
    """Only right after the channel is made or its code renewed: the key is absent otherwise."""

    @model_serializer(mode="wrap")
    def _without_missing_code(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.code is None:
            data.pop("code", None)
        return data


class Command(Wire):
    """The owner's view of a command (API)."""

    command_id: str
    seq: int
    text: str
    state: str
    claimed_by: str | None
    in_reply_to: str | None
    retry_of: str | None
    created_at: Moment
    context: dict[str, Any] | None


class EventActor(BaseModel):
    type: str
    id: str
    name: str


class Event(Wire):
    seq: int
    kind: str
    command_id: str | None
    at: Moment
    actor: EventActor
    data: dict[str, Any]

    @classmethod
    def of(cls, view: EventView) -> Event:
        actor = EventActor(type=view.actor_type, id=view.actor_id, name=view.actor_name)
        return cls(
            seq=view.seq, kind=view.kind, command_id=view.command_id, at=view.at, actor=actor, data=view.data
        )


class Confirmation(Wire):
    confirmation_id: str
    command_id: str
    tool: str
    arguments: dict[str, Any]
    fingerprint: str
    state: str
    expires_at: Moment


def _json(model: type[Wire], view: type[V]) -> Callable[[V], dict[str, Any]]:
    """The contract's JSON of a core view, read through its wire model."""

    def dump(value: V) -> dict[str, Any]:
        return model.model_validate(value).model_dump(mode="json")

    return dump


channel = _json(Channel, ChannelView)
member = _json(Member, MemberView)
command = _json(Command, CommandView)
confirmation = _json(Confirmation, ConfirmationView)


def event(view: EventView) -> dict[str, Any]:
    return Event.of(view).model_dump(mode="json")
