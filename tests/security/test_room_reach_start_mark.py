"""A limited room cannot move the start mark away from a scene outside it.

A story has one start scene, so marking a scene as the start takes the mark from the one that
had it. In a room covering chapter 2, marking a chapter-2 scene as the start would change chapter
1's start scene: that is `[out_of_scope]`, nothing changes, and what the command recorded names
nothing outside the room. Inside a room that covers both scenes the mark moves as before.
"""

from __future__ import annotations

import pytest

from tests.support.agents import ToolRefused, data
from tests.support.rooms import Author, claimed, joined, new_author, story_of
from tests.support.server import RunningServer


@pytest.fixture(scope="module")
def author(server: RunningServer) -> Author:
    return new_author(server, "startmark")


async def test_marking_a_start_scene_that_would_unmark_another_chapter_s_start_is_out_of_scope(
    author: Author,
):
    async with author.owner() as api, author.agent() as outsider, author.agent() as member:
        story = await story_of(outsider)
        lamp_room = story.scene_id("The Lamp Room")
        channel_id, cursor = await joined(api, member, story, scope={"chapter_ids": [story.chapter_ids[1]]})
        command_id, _ = await claimed(api, member, channel_id, cursor, "Start the story in the lamp room")

        with pytest.raises(ToolRefused) as refusal:
            await member.call("romergo_update_scene", scene_id=lamp_room, is_start=True, title="Lamp")

        assert refusal.value.code == "out_of_scope"
        assert "start" in refusal.value.text and "outside" in refusal.value.text
        for outside in [
            *story.titles_in(1),
            "Climb to the lighthouse",
            story.scene_id("Arrival at the Harbor"),
        ]:
            assert outside not in refusal.value.text
        after = await story_of(outsider)
        assert after.scenes["Arrival at the Harbor"]["is_start"] is True
        assert after.scenes["The Lamp Room"]["is_start"] is False
        assert "Lamp" not in after.scenes  # the whole call changed nothing, its title included
        changes = data(await member.call("romergo_list_command_changes", command_id=command_id))["changes"]
        assert changes == []
        await api("POST", f"/channels/{channel_id}/end")


async def test_a_room_that_covers_both_scenes_still_moves_the_start_mark(author: Author):
    async with author.owner() as api, author.agent() as outsider, author.agent() as member:
        story = await story_of(outsider)
        start = next(title for title, scene in story.scenes.items() if scene["is_start"])
        start_chapter = story.scenes[start]["chapter_id"]
        other = next(t for t, s in story.scenes.items() if s["chapter_id"] == start_chapter and t != start)
        channel_id, cursor = await joined(api, member, story, scope={"chapter_ids": [start_chapter]})
        await claimed(api, member, channel_id, cursor, "Start somewhere else in this chapter")

        moved = await member.call("romergo_update_scene", scene_id=story.scene_id(other), is_start=True)

        assert data(moved)["is_start"] is True
        after = await story_of(outsider)
        assert [title for title, scene in after.scenes.items() if scene["is_start"]] == [other]
        await member.call("romergo_update_scene", scene_id=story.scene_id(start), is_start=True)
        await api("POST", f"/channels/{channel_id}/end")
