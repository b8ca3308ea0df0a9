"""Who is acting, on whose authority, and for which agent command.

Every mutation carries an Actor; it ends up in the Revision so history, diff and undo can tell
the author's own edits from an agent's, and which command and tool made them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

ActorType = Literal["user", "agent", "system"]


@dataclass(frozen=True)
class Actor:
    user_id: str
    """The owner whose projects may be touched: every permission check starts here."""
    type: ActorType = "user"
    id: str = ""
    name: str = ""
    command_id: str | None = None
    tool: str | None = None
    client_id: str | None = None
    reach: frozenset[str] | None = None
    """The chapters an agent's room covers (None: the whole project). Lists leave out the rest;
    the guard has already refused calls on entities outside it (`romergo.channels.reach`)."""

    @property
    def actor_id(self) -> str:
        return self.id or self.user_id

    def for_tool(self, tool: str, command_id: str | None, reach: frozenset[str] | None = None) -> Actor:
        return replace(self, tool=tool, command_id=command_id, reach=reach)


def user_actor(user_id: str, name: str = "") -> Actor:
    return Actor(user_id=user_id, type="user", id=user_id, name=name)


def system_actor(user_id: str) -> Actor:
    """Work Romergo does by itself on a user's behalf (demo seeding)."""
    return Actor(user_id=user_id, type="system", id="romergo", name="Romergo")


def agent_actor(user_id: str, client_id: str, name: str) -> Actor:
    return Actor(user_id=user_id, type="agent", id=client_id, name=name, client_id=client_id)
