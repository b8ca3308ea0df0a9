"""MCP prompts. `join_builder_channel` is what a user picks in their agent's client to join the
channel they opened in the editor. Fixed text plus the code the user typed: never project data
(SECURITY.md), so nothing a project contains can speak to the agent as its user."""

from __future__ import annotations

import re
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS
from pydantic import Field

from romergo.channels.instructions import JOIN_INSTRUCTIONS

_CODE = re.compile(r"^[A-Za-z0-9_-]{4,100}$")

JOIN_DESCRIPTION = (
    "Join the Romergo Builder channel the user opened in the editor (Invite your agent) and work "
    "on the commands they send from it."
)


def join_text(code: str) -> str:
    return (
        "Join my Romergo Builder channel and work on the commands I send from the editor.\n\n"
        f'First call the tool romergo_join_builder_channel with code "{code}". It returns a '
        "channel_id, a cursor and these instructions, which describe the loop:\n\n"
        f"{JOIN_INSTRUCTIONS}"
    )


def register(server: MCPServer[Any]) -> None:
    @server.prompt(
        name="join_builder_channel", title="Join a Romergo Builder channel", description=JOIN_DESCRIPTION
    )
    def join_builder_channel(
        code: Annotated[str, Field(description="The join code shown in the editor's agent panel.")],
    ) -> str:
        cleaned = code.strip()
        if not _CODE.match(cleaned):
            raise MCPError(
                INVALID_PARAMS,
                "[invalid_argument] That is not a join code: copy it from the editor's agent panel "
                "(Invite your agent).",
            )
        return join_text(cleaned)
