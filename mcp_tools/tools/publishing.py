"""Publishing tools: share the story as it is now behind a read-only link, or take it down."""

from __future__ import annotations

from mcp.types import ToolAnnotations
from pydantic import BaseModel

from mcp_tools.declare import Call, Toolbox
from mcp_tools.tools.common import REPLACES, CommandId, ProjectEntity, ProjectId
from romergo.common import urls
from romergo.story.records import ProjectRecord


class Published(BaseModel):
    url: str


tools = Toolbox()


@tools.tool(
    "publish",
    "Publish a project",
    "Publish the story as it is now: anyone with the returned link can play it (read-only). "
    "Publishing again refreshes what the link shows and keeps the link. Run "
    "romergo_check_story first. Returns {url}.",
    ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False),
    target=("project", "project_id"),
    whole_project=True,
    action=lambda args: f"Publish project {args['project_id']} (anyone with the link can play it)",
    result=Published,
)
async def romergo_publish_project(
    call: Call, project_id: ProjectId, command_id: CommandId = None
) -> Published:
    project = await call.services.publishing.publish_project(call.actor, project_id)
    share_id = project.share_id or ""
    return Published(url=urls.absolute(call.services.settings.base_url, urls.published(share_id)))


@tools.tool(
    "publish",
    "Unpublish a project",
    "Take a published story down: its link stops working (publishing again makes a new "
    "one). A project that is not published is a conflict error. Returns the project.",
    REPLACES,
    target=("project", "project_id"),
    whole_project=True,
    action=lambda args: f"Unpublish project {args['project_id']} (its link stops working)",
    result=ProjectEntity,
)
async def romergo_unpublish_project(
    call: Call, project_id: ProjectId, command_id: CommandId = None
) -> ProjectRecord:
    return await call.services.publishing.unpublish_project(call.actor, project_id)
