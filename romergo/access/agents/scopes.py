"""Token scopes (CONTRACT.md §5): what an agent's token may do at most.

A room's permissions narrow them further at every call; a token never grants more than its scopes.
"""

from __future__ import annotations

READ = "romergo:read"
EDIT = "romergo:edit"
MEDIA = "romergo:media"
PUBLISH = "romergo:publish"
DELETE = "romergo:delete"
CONTROL = "romergo:control"

OAUTH_SCOPES: tuple[str, ...] = (READ, EDIT, MEDIA, PUBLISH, DELETE)
"""What an OAuth client can ever be granted: never `romergo:control` (the owner's remote control)."""

ALL_SCOPES: tuple[str, ...] = (*OAUTH_SCOPES, CONTROL)
PERSONAL_DEFAULT: tuple[str, ...] = (READ, EDIT, MEDIA)
CONSENT_PRESELECTED: frozenset[str] = frozenset({READ, EDIT, MEDIA})
"""Ticked on the consent page when asked for; publish and delete always start unticked."""

SHORT_NAMES: dict[str, str] = {scope.removeprefix("romergo:"): scope for scope in ALL_SCOPES}
LABELS: dict[str, str] = {
    READ: "Read",
    EDIT: "Edit",
    MEDIA: "Media",
    PUBLISH: "Publish",
    DELETE: "Delete",
    CONTROL: "Control",
}
DESCRIPTIONS: dict[str, str] = {
    READ: "read your projects (always included)",
    EDIT: "change chapters, scenes, lines, choices and characters",
    MEDIA: "import and place backgrounds, music and sounds",
    PUBLISH: "publish and unpublish your stories",
    DELETE: "delete scenes, chapters and assets",
    CONTROL: "act as you in the editor: channels, commands, settings",
}


def ordered(scopes: frozenset[str] | set[str] | list[str] | tuple[str, ...]) -> list[str]:
    """Scopes in their canonical order (the order of ALL_SCOPES); unknown ones are dropped."""
    present = set(scopes)
    return [scope for scope in ALL_SCOPES if scope in present]
