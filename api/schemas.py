"""Request bodies of the JSON API. Unknown fields are refused, so typos never pass silently."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Scope(Strict):
    """The chapters a room covers (their scenes, lines and choices with them)."""

    chapter_ids: list[str] = Field(min_length=1, max_length=500)


class NewChannel(Strict):
    project_id: str = Field(min_length=1, max_length=64)
    permissions: dict[str, bool] | None = None
    confirmation_mode: Literal["none", "publish_and_delete", "every_change"] | None = None
    scope: Scope | None = None
    """None (or absent): the whole project."""


class ChannelSettings(Strict):
    permissions: dict[str, bool] | None = None
    confirmation_mode: Literal["none", "publish_and_delete", "every_change"] | None = None
    scope: Scope | None = None
    """Absent: unchanged; null: the whole project."""


class Decision(Strict):
    decision: Literal["allow_once", "reject"]


class NewCommand(Strict):
    text: str = Field(min_length=1, max_length=4000)
    context: dict[str, Any] | None = None
    in_reply_to: str | None = Field(default=None, max_length=64)


class Undo(Strict):
    force: bool = False
    """Undo even where the story changed since: only the fields the command changed go back."""


class NewMember(Strict):
    username: str = Field(min_length=1, max_length=200)
    role: str = Field(min_length=1, max_length=20)
    """Checked by the core, which names the roles a member may hold."""


class MemberRole(Strict):
    role: str = Field(min_length=1, max_length=20)


class Heir(Strict):
    username: str = Field(min_length=1, max_length=200)


class NewInvitation(Strict):
    role: str = Field(min_length=1, max_length=20)
    """`editor` or `viewer`."""
    username: str | None = Field(default=None, min_length=1, max_length=200)
    """Only this account may use the link; absent: whoever opens it."""
