"""The story check in a limited room names no scene outside it, even in a problem that spans chapters.

A loop without exit runs through "The Boathouse" (chapter 1), "The Forgotten Cellar" and "The
Logbook" (chapter 2). A room covering chapter 1 is told of the loop through its own scene, with the
others counted but not named; a room covering chapter 2 is told of it too (the loop is its problem
as much), naming its two scenes and not the boathouse. No other problem names an outside scene.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.agents import Agent, data
from tests.support.rooms import Author, Story, joined, new_author, story_of
from tests.support.server import RunningServer

BOATHOUSE = "The Boathouse"


@pytest.fixture(scope="module")
def author(server: RunningServer) -> Author:
    return new_author(server, "storycheck")


async def looped_story(author: Author) -> Story:
    """The demo story with a loop across chapters 1 and 2 that no ending can be reached from."""
    async with author.agent() as outsider:
        story = await story_of(outsider)
        added = await outsider.call("romergo_add_scene", chapter_id=story.chapter_ids[0], title=BOATHOUSE)
        boathouse = data(added)
        cellar, logbook = story.scene_id("The Forgotten Cellar"), story.scene_id("The Logbook")
        await outsider.call(
            "romergo_set_choices",
            scene_id=boathouse["id"],
            choices=[{"label": "Down the ladder", "target_scene_id": cellar}],
        )
        await outsider.call(
            "romergo_set_choices",
            scene_id=logbook,
            choices=[{"label": "Row to the boathouse", "target_scene_id": boathouse["id"]}],
        )
        return await story_of(outsider)


async def test_a_loop_across_chapters_is_reported_in_a_room_without_the_outside_scenes(author: Author):
    looped = await looped_story(author)
    for number, inside, outside in (
        (1, [BOATHOUSE], looped.titles_in(2, 3)),
        (2, ["The Forgotten Cellar", "The Logbook"], [*looped.titles_in(1, 3)]),
    ):
        problems = await checked_in_room(author, looped, number)

        loops = [p for p in problems if p["code"] == "loop_without_exit"]
        assert len(loops) == 1, (number, problems)
        assert all(f'"{title}"' in loops[0]["message"] for title in inside), loops[0]
        assert "outside this room" in loops[0]["message"]
        assert loops[0]["chapter_id"] == looped.chapter_ids[number - 1]
        named = json.dumps(problems)
        assert [title for title in outside if f'"{title}"' in named] == [], number
        assert [p for p in problems if p["chapter_id"] not in (None, looped.chapter_ids[number - 1])] == []


async def checked_in_room(author: Author, story: Story, number: int) -> list[dict[str, Any]]:
    """`romergo_check_story` by an agent in a room covering chapter `number` only."""
    async with author.owner() as api, author.agent() as member:
        channel_id, _ = await joined(
            api, member, story, scope={"chapter_ids": [story.chapter_ids[number - 1]]}
        )
        problems = await all_problems(member, story.project_id)
        await api("POST", f"/channels/{channel_id}/end")
    return problems


async def all_problems(member: Agent, project_id: str) -> list[dict[str, Any]]:
    checked = data(await member.call("romergo_check_story", project_id=project_id))
    assert checked["room"], checked  # the room says the list is kept to it
    return list(checked["problems"])
