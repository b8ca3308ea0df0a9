"""Narrowing a room applies to what it recorded before, too.

In a whole-project room agent X rewrites a line of chapter 3 and the owner queues a command with a
chapter-3 selection; then the owner narrows the room to chapter 1. From then on nothing of chapter
3 travels to an agent of that room: not in the conversation a new agent Y gets when it joins (the
owner's typed words stay, the selection, X's arguments and the recorded titles do not), not in
the queued command Y's wait delivers (the ids stay, the selected text does not), and not in what
X's `list_command_changes` returns (the change is there, its before and after are not).
"""

from __future__ import annotations

import json

import pytest

from tests.support.agents import OwnerApi, data
from tests.support.rooms import Author, claimed, joined, new_author, story_of
from tests.support.server import RunningServer

REWRITTEN = "The brass key opens the ninth crate under the pier."
SELECTED = "I needed the money, Mara."
QUEUED = "Make this kinder"


@pytest.fixture(scope="module")
def author(server: RunningServer) -> Author:
    return new_author(server, "narrowed")


async def test_narrowing_a_room_withholds_what_it_recorded_outside_its_new_reach(author: Author):
    async with author.owner() as api, author.agent() as outsider, author.agent() as x:
        story = await story_of(outsider)
        pier = story.scene_id("Confrontation on the Pier")
        lines = data(await outsider.call("romergo_get_scene", scene_id=pier))["lines"]
        selected_line, rewritten_line = lines[0], lines[1]
        assert selected_line["text"].startswith(SELECTED)
        channel_id, cursor = await joined(api, x, story)
        command_id, _ = await claimed(api, x, channel_id, cursor, "Sharpen the pier scene")
        await x.call("romergo_update_dialogue_line", line_id=rewritten_line["id"], text=REWRITTEN)
        await x.call(
            "romergo_report_builder_event",
            command_id=command_id,
            kind="reply",
            text="Done.",
            summary={
                "status": "success",
                "changed_entities": [{"type": "dialogue_line", "id": rewritten_line["id"]}],
            },
        )
        selection = {
            "text": SELECTED,
            "entity_type": "dialogue_line",
            "entity_id": selected_line["id"],
            "start": 0,
            "end": len(SELECTED),
        }
        context = {
            "chapter_id": story.chapter_ids[2],
            "scene_id": pier,
            "surface": "scene",
            "selection": selection,
        }
        await api("POST", f"/channels/{channel_id}/commands", {"text": QUEUED, "context": context})
        await api("PATCH", f"/channels/{channel_id}", {"scope": {"chapter_ids": [story.chapter_ids[0]]}})

        async with author.agent() as y:
            joined_y = await y.call("romergo_join_builder_channel", code=await new_code(api, channel_id))
            conversation = json.dumps(data(joined_y["conversation"]))
            delivered = await y.wait(channel_id, joined_y["cursor"])
        changes = data(await x.call("romergo_list_command_changes", command_id=command_id))["changes"]

        outside = [REWRITTEN, rewritten_line["text"], SELECTED, *story.titles_in(3)]
        assert QUEUED in conversation and "Sharpen the pier scene" in conversation  # the owner's words
        assert [words for words in outside if words in conversation] == []
        command = delivered["command"]
        assert command["text"] == QUEUED
        assert data(command["context"])["selection"] is None
        assert data(command["context"])["scene_id"] == pier  # the ids travel: the agent can say so
        assert [words for words in outside if words in json.dumps(changes)] == []
        assert [(c["entity_type"], c["entity_id"]) for c in changes] == [
            ("dialogue_line", rewritten_line["id"])
        ]
        assert changes[0]["before"] is None and changes[0]["after"] is None
        await api("POST", f"/channels/{channel_id}/end")


async def new_code(api: OwnerApi, channel_id: str) -> str:
    """A fresh code: the room admits a new agent with it."""
    return str((await api("POST", f"/channels/{channel_id}/code"))["code"])
