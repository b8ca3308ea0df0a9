"""The caller's role in the project tools: each listed project and the outline say it; a viewer's
agent reads the story and is refused its writes."""

from __future__ import annotations

from tests.support.story import small_story
from tests.support.tools import agent_of


async def test_the_list_and_the_outline_say_the_callers_role(services, actor):
    story = await small_story(services, actor)
    await services.accounts.create_user("ada")
    await services.members.add_member(actor, story.project_id, "ada", "editor")
    own = await services.projects.create_project(actor, "Another")

    async with agent_of(services, "writer") as agent:
        listed = await agent.ok("romergo_list_projects")
        outline = await agent.ok("romergo_get_project_outline", project_id=story.project_id)
    assert [(p["id"], p["role"]) for p in listed["projects"]] == [
        (own.id, "owner"),
        (story.project_id, "owner"),
    ]
    assert outline["role"] == "owner"

    async with agent_of(services, "ada") as agent:
        listed = await agent.ok("romergo_list_projects")
        outline = await agent.ok("romergo_get_project_outline", project_id=story.project_id)
    assert [(p["id"], p["title"], p["role"]) for p in listed["projects"]] == [
        (story.project_id, "Test Story", "editor")
    ]
    assert outline["role"] == "editor"


async def test_a_viewers_agent_reads_and_its_write_is_refused(services, actor):
    story = await small_story(services, actor)
    await services.accounts.create_user("bo")
    await services.members.add_member(actor, story.project_id, "bo", "viewer")

    async with agent_of(services, "bo") as agent:
        outline = await agent.ok("romergo_get_project_outline", project_id=story.project_id)
        refused = await agent.error("romergo_add_chapter", project_id=story.project_id, title="Two")
    assert outline["role"] == "viewer"
    assert refused.startswith("[permission_denied] ")
    chapters = await services.reads.chapter_ids(actor, story.project_id)
    assert chapters == [story.chapter_id]
