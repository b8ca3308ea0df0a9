"""Duplicating scenes and chapters, and deleting a character, through the agent's tools:
copies come right after their originals with everything they own; a character who still speaks is
kept, and the refusal says where they speak."""

from __future__ import annotations

from tests.support.tools import agent_of, furnished_story, story_state


async def test_the_agent_duplicates_a_scene_and_a_chapter(services, actor):
    story = await furnished_story(services, actor)
    async with agent_of(services, "writer") as agent:
        scene = await agent.ok("romergo_duplicate_scene", scene_id=story.first_scene_id)
        chapter = await agent.ok("romergo_duplicate_chapter", chapter_id=story.chapter_id)
        copied = await agent.ok("romergo_get_scene", scene_id=scene["id"])
        listed = await agent.ok("romergo_get_chapter", chapter_id=chapter["id"])
    assert (scene["entity_type"], scene["title"], scene["position"], scene["is_start"]) == (
        "scene",
        "Opening (copy)",
        1,
        False,
    )
    assert [line["text"] for line in copied["lines"]] == ["The fog rolls in.", "Who goes there?"]
    assert (chapter["entity_type"], chapter["title"], chapter["position"]) == ("chapter", "One (copy)", 1)
    assert [s["title"] for s in listed["scenes"]] == ["Opening", "Opening (copy)", "Closing"]


async def test_a_character_who_still_speaks_is_kept_and_the_refusal_says_where(services, actor):
    story = await furnished_story(services, actor)
    async with agent_of(services, "writer") as agent:
        before = await story_state(services)
        refused = await agent.error("romergo_delete_character", character_id=story.hero_id)
        unknown = await agent.error("romergo_delete_character", character_id="chr_nobody")
        kept = await story_state(services)
        await agent.ok("romergo_update_dialogue_line", line_id=story.spoken_id, character_id="")
        deleted = await agent.ok("romergo_delete_character", character_id=story.hero_id)
        outline = await agent.ok("romergo_get_project_outline", project_id=story.project_id)
    assert refused.startswith("[conflict] ") and '"Hero" still speaks in "Opening"' in refused
    assert unknown.startswith("[not_found] ")
    assert kept == before
    assert deleted == {"entity_type": "character", "id": story.hero_id, "deleted": True}
    assert outline["characters"] == []
