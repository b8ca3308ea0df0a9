"""Who may do what in a story: the one place the rule lives.

A project's members each hold one role. The owner may do everything; an editor everything but
deleting the story and managing its members; a viewer reads, plays and sees the history. Every
read and write of the story services asks here, with the role the same statement that found the
project read (`StoryTransaction.project_holding`, `StoryLedger.owner_of`).

Someone who is not a member learns nothing: what lies in the project is `not_found` to them, as
if it did not exist. A member refused a right is told so (`permission_denied`).
"""

from __future__ import annotations

from enum import Enum, StrEnum

from romergo.common.errors import RomergoError, invalid


class Role(StrEnum):
    OWNER = "owner"
    EDITOR = "editor"
    VIEWER = "viewer"


class Right(Enum):
    READ = "read the story, play it, see its history"
    WRITE = "change the story"
    DELETE_STORY = "delete the story"
    MANAGE_MEMBERS = "manage the story's members"


_NAMES = tuple(role.value for role in Role)

RIGHTS: dict[Role, frozenset[Right]] = {
    Role.OWNER: frozenset(Right),
    Role.EDITOR: frozenset({Right.READ, Right.WRITE}),
    Role.VIEWER: frozenset({Right.READ}),
}


def role_named(value: object) -> Role:
    """The role a caller names (`invalid_argument` for anything but the three)."""
    if isinstance(value, str) and value in _NAMES:
        return Role(value)
    raise invalid(f"Unknown role {value!r}; a member is one of: {', '.join(_NAMES)}.")


def role_of(stored: str | None) -> Role | None:
    """The role as storage holds it; None for someone who is not a member."""
    return None if stored is None else Role(stored)


def may(role: Role | None, right: Right) -> bool:
    """Whether a member of this role (None: not a member) has `right`."""
    return role is not None and right in RIGHTS[role]


def require(role: Role, right: Right) -> None:
    """Refuse a member whose role lacks `right` (`permission_denied`), changing nothing."""
    if not may(role, right):
        raise RomergoError(
            "permission_denied", f"As {article(role)} {role.value} of this story you may not {right.value}."
        )


def article(role: Role) -> str:
    """ "a" or "an", as the role's name asks ("an editor", "a viewer")."""
    return "an" if role.value[0] in "aeiou" else "a"
