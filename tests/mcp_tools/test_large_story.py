"""A long story costs the outline and the check no more queries than a short one.

The same tools on a 200-scene and a 2,000-scene story run the same number of SQL statements (one
per table, never one per scene), and each page of the result stays within the text budget.
"""

from __future__ import annotations

import pytest

from mcp_tools.paging import DEFAULT_PAGE_CHARS
from tests.support.big_story import big_story
from tests.support.statements import counting
from tests.support.tools import ALL_SCOPES, agent, text_of, untrusted

WHOLE_PROJECT_TOOLS = ("romergo_get_project_outline", "romergo_check_story")


@pytest.mark.parametrize("tool", WHOLE_PROJECT_TOOLS)
async def test_a_long_story_costs_no_more_statements_than_a_short_one(services, actor, tool):
    short = await big_story(services, actor, scenes=200, lines_per_scene=2, chapters=4)
    long = await big_story(services, actor, scenes=2000, lines_per_scene=2, chapters=40)
    token, _ = await services.agents.personal.create("writer", name="Helper", scopes=ALL_SCOPES)
    counts = {}
    async with agent(services, token) as helper:
        for story in (short, long):
            await helper.call(tool, project_id=story.project_id)  # the agent's activity is written once
            with counting(services) as seen:
                result = await helper.call(tool, project_id=story.project_id)
            assert not result.is_error, text_of(result)
            assert len(text_of(result).encode()) <= DEFAULT_PAGE_CHARS
            counts[story.project_id] = seen.count
    assert counts[short.project_id] == counts[long.project_id]


async def test_the_outline_of_a_long_story_pages_through_every_scene(services, actor):
    story = await big_story(services, actor, scenes=2000, lines_per_scene=1, chapters=40)
    token, _ = await services.agents.personal.create("writer", name="Helper", scopes=ALL_SCOPES)
    seen: list[str] = []
    page = None
    async with agent(services, token) as helper:
        for _ in range(50):
            arguments = {"project_id": story.project_id, **({"page": page} if page else {})}
            content = untrusted(await helper.call("romergo_get_project_outline", **arguments))
            seen.extend(scene["id"] for chapter in content["data"]["chapters"] for scene in chapter["scenes"])
            page = content["next_page"]
            if page is None:
                break
    assert seen == story.scene_ids


async def test_the_check_reads_where_lines_are_but_not_their_text(services, actor):
    """50,000 texts were a third of the check's time, and it looks only at positions and speakers."""
    story = await big_story(services, actor, scenes=20, lines_per_scene=2, chapters=2)
    with counting(services) as seen:
        await services.reads.check_story(actor, story.project_id)
    lines_read = [statement for statement in seen.sql if "FROM dialogue_lines" in statement]
    assert lines_read, str(seen)
    assert not any("dialogue_lines.text" in statement for statement in lines_read), str(seen)
