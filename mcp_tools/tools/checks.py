"""`romergo_check_story`: what is wrong or missing in a story, for the agent to verify its work."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, ConfigDict

from mcp_tools.declare import Call, Toolbox
from mcp_tools.envelope import Envelope
from mcp_tools.paging import paged_aside
from mcp_tools.tools.common import READ_ONLY, Page, PageSize, ProjectId, RoomListing, room_note
from romergo.story import Problem


class ProblemItem(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    code: str
    severity: str
    message: str
    scene_id: str | None
    chapter_id: str | None


class CheckResult(RoomListing):
    problems: list[ProblemItem]


tools = Toolbox()


@tools.tool(
    "read",
    "Check a story",
    "Check a whole story for problems, the same check the editor shows: dangling_target "
    "(a choice leads nowhere), unreachable_scene, dead_end (no choices and not an ending), "
    "loop_without_exit, missing_background, missing_music, empty_scene, blank_scene (no lines "
    "and no choices), unknown_speaker, no_start_scene, unused_asset, empty_choice_label, "
    "duplicate_choice_label, unreadable_media (a used file that would not load). Each has a "
    "severity (error, warning, info), a message and where it is. Run it after changing a story "
    "and before publishing. An empty list means "
    "no problems. A long result is cut with truncated: true; call again with page = next_page. "
    "In a room limited to some chapters, only their problems are listed (room says so).",
    READ_ONLY,
    target=("project", "project_id"),
)
async def romergo_check_story(
    call: Call, project_id: ProjectId, page: Page = None, page_size: PageSize = None
) -> Annotated[CallToolResult, Envelope[CheckResult]]:
    problems = await call.services.reads.check_story(call.actor, project_id)

    def build(part: Sequence[Problem]) -> CheckResult:
        return CheckResult(
            problems=[ProblemItem.model_validate(problem) for problem in part], room=room_note(call.actor)
        )

    keys = [f"{p.code}:{p.scene_id}:{p.message}" for p in problems]
    return await paged_aside(f"check_story:{project_id}", problems, keys, build, page, page_size)
