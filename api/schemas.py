"""Request bodies of the JSON API. Unknown fields are refused, so typos never pass silently."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewChannel(Strict):
    project_id: str = Field(min_length=1, max_length=64)
    permissions: dict[str, bool] | None = None
    confirmation_mode: Literal["none", "publish_and_delete", "every_change"] | None = None


class ChannelSettings(Strict):
    permissions: dict[str, bool] | None = None
    confirmation_mode: Literal["none", "publish_and_delete", "every_change"] | None = None


class Decision(Strict):
    decision: Literal["allow_once", "reject"]


class NewCommand(Strict):
    text: str = Field(min_length=1, max_length=4000)
    context: dict[str, Any] | None = None
    in_reply_to: str | None = Field(default=None, max_length=64)


class Undo(Strict):
    force: bool = False
    """Undo even where the story changed since: only the fields the command changed go back."""
