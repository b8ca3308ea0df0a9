"""`romergo_check_story`: what is wrong or missing in a story, for the agent to verify its work."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import BaseModel

from mcp_tools.envelope import Envelope
from mcp_tools.paging import paged
from mcp_tools.tooling import ToolSpec, add_tool, run_tool
from mcp_tools.tools.common import READ_ONLY, Page, ProjectId
from romergo.actors import Actor
from romergo.services import Services
from romergo.story import Problem


class ProblemItem(BaseModel):
    code: str
    severity: str
    message: str
    scene_id: str | None
    chapter_id: str | None


class CheckResult(BaseModel):
    problems: list[ProblemItem]


CHECK_STORY = ToolSpec(
    name="romergo_check_story",
    category="read",
    title="Check a story",
    description=(
        "Check a whole story for problems, the same check the editor shows: dangling_target "
        "(a choice leads nowhere), unreachable_scene, dead_end (no choices and not an ending), "
        "loop_without_exit, missing_background, missing_music, empty_scene, unknown_speaker, "
        "no_start_scene, unused_asset. Each has a severity (error, warning, info), a message and "
        "where it is. Run it after changing a story and before publishing. An empty list means "
        "no problems. A long result is cut with truncated: true; call again with page = next_page."
    ),
    annotations=READ_ONLY,
    target=("project", "project_id"),
)


def register(server: MCPServer[Any], services: Services) -> None:
    async def romergo_check_story(
        project_id: ProjectId, ctx: Context[Any, Any], page: Page = None
    ) -> Annotated[CallToolResult, Envelope[CheckResult]]:
        async def body(actor: Actor) -> CallToolResult:
            problems = await services.reads.check_story(actor, project_id)

            def build(part: Sequence[Problem]) -> CheckResult:
                return CheckResult(
                    problems=[
                        ProblemItem(
                            code=p.code,
                            severity=p.severity,
                            message=p.message,
                            scene_id=p.scene_id,
                            chapter_id=p.chapter_id,
                        )
                        for p in part
                    ]
                )

            keys = [f"{p.code}:{p.scene_id}:{p.message}" for p in problems]
            return paged(f"check_story:{project_id}", problems, keys, build, page)

        return await run_tool(services, CHECK_STORY, {"project_id": project_id, "page": page}, body, ctx)

    add_tool(server, CHECK_STORY, romergo_check_story)
