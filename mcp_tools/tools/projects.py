"""Project tools: `romergo_list_projects`."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel

from mcp_tools.envelope import Envelope, envelope
from mcp_tools.tooling import ToolSpec, add_tool, run_tool
from romergo.actors import Actor
from romergo.clock import iso
from romergo.services import Services


class ProjectSummary(BaseModel):
    id: str
    title: str
    updated_at: str
    published: bool


class ProjectList(BaseModel):
    projects: list[ProjectSummary]


LIST_PROJECTS = ToolSpec(
    name="romergo_list_projects",
    category="read",
    title="List projects",
    description=(
        "List the user's Romergo story projects, most recently changed first: id, title, "
        "last change (ISO 8601 UTC) and whether the story is published."
    ),
    annotations=ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    ),
)


def register(server: MCPServer[Any], services: Services) -> None:
    async def romergo_list_projects() -> Annotated[CallToolResult, Envelope[ProjectList]]:
        async def body(actor: Actor) -> CallToolResult:
            rows = await services.stories.list_projects(actor)
            summaries = [
                ProjectSummary(
                    id=row.id, title=row.title, updated_at=iso(row.updated_at) or "", published=row.published
                )
                for row in rows
            ]
            return envelope(ProjectList(projects=summaries))

        return await run_tool(services, LIST_PROJECTS, {}, body)

    add_tool(server, LIST_PROJECTS, romergo_list_projects)
