"""Publishing tools: share the story as it is now behind a read-only link, or take it down."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel

from mcp_tools.envelope import Envelope, envelope
from mcp_tools.tooling import ToolSpec, add_tool, run_tool
from mcp_tools.tools.common import REPLACES, CommandId, ProjectEntity, ProjectId, project_entity
from romergo.actors import Actor
from romergo.services import Services


class Published(BaseModel):
    url: str


PUBLISH = ToolSpec(
    name="romergo_publish_project",
    category="publish",
    title="Publish a project",
    description=(
        "Publish the story as it is now: anyone with the returned link can play it (read-only). "
        "Publishing again refreshes what the link shows and keeps the link. Run "
        "romergo_check_story first. Returns {url}."
    ),
    annotations=ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
    ),
    target=("project", "project_id"),
    action=lambda args: f"Publish project {args['project_id']} (anyone with the link can play it)",
)
UNPUBLISH = ToolSpec(
    name="romergo_unpublish_project",
    category="publish",
    title="Unpublish a project",
    description=(
        "Take a published story down: its link stops working (publishing again makes a new "
        "one). A project that is not published is a conflict error. Returns the project."
    ),
    annotations=REPLACES,
    target=("project", "project_id"),
    action=lambda args: f"Unpublish project {args['project_id']} (its link stops working)",
)


def register(server: MCPServer[Any], services: Services) -> None:
    async def romergo_publish_project(
        project_id: ProjectId, ctx: Context[Any, Any], command_id: CommandId = None
    ) -> Annotated[CallToolResult, Envelope[Published]]:
        async def body(actor: Actor) -> CallToolResult:
            project = await services.publishing.publish_project(actor, project_id)
            return envelope(Published(url=f"{services.settings.base_url}/published/{project.share_id}"))

        arguments = {"project_id": project_id, "command_id": command_id}
        return await run_tool(services, PUBLISH, arguments, body, ctx)

    async def romergo_unpublish_project(
        project_id: ProjectId, ctx: Context[Any, Any], command_id: CommandId = None
    ) -> Annotated[CallToolResult, Envelope[ProjectEntity]]:
        async def body(actor: Actor) -> CallToolResult:
            return envelope(project_entity(await services.publishing.unpublish_project(actor, project_id)))

        arguments = {"project_id": project_id, "command_id": command_id}
        return await run_tool(services, UNPUBLISH, arguments, body, ctx)

    add_tool(server, PUBLISH, romergo_publish_project)
    add_tool(server, UNPUBLISH, romergo_unpublish_project)
