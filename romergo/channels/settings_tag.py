"""A channel's settings as an entity tag (the JSON API's `ETag` / `If-Match`).

The tag is a hash of what the owner can change (permissions, confirmation mode, scope), so two
reads of the same settings give the same tag and any change gives another: a script that sends
back the tag it read changes the settings only if nobody changed them since, compared in the
change's own transaction.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Protocol

from romergo.common.errors import RomergoError


class HasSettings(Protocol):
    @property
    def permissions(self) -> dict[str, Any]: ...
    @property
    def confirmation_mode(self) -> str: ...
    @property
    def scope(self) -> dict[str, Any] | None: ...


class SettingsChangedError(RomergoError):
    """The settings are no longer those the caller's tag names; `current` is the channel now."""

    def __init__(self, current: Any, tag: str) -> None:
        super().__init__(
            "conflict",
            "The channel's settings changed since you read them: nothing was changed. Read them "
            "again (the current ones come with this answer) and decide.",
        )
        self.current = current
        self.tag = tag


def settings_tag(channel: HasSettings) -> str:
    content = {
        "permissions": channel.permissions,
        "confirmation_mode": channel.confirmation_mode,
        "scope": channel.scope,
    }
    digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()
    return f'"{digest[:20]}"'


def matches(if_match: str, tag: str) -> bool:
    """An `If-Match` value (one tag, a list, or `*`) names this tag; weak tags compare as strong."""
    given = [item.strip().removeprefix("W/") for item in if_match.split(",")]
    return "*" in given or tag in given
