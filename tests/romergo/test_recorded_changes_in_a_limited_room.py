"""What a command recorded, seen from its room after the room narrowed (`channels.room_view`).

Each change is placed where its entity lies now, or where its last revision put it once it is
gone, and where its own before and after were: a scene moved in from outside the room stays
withheld, a line added and deleted again inside the room stays shown, characters stay readable.
"""

from __future__ import annotations

from romergo.channels.room_view import OUTSIDE_TITLE
from romergo.common.actors import Actor
from tests.support.channels import open_room
from tests.support.commands import carried_out

DATABASES = ("sqlite",)
"""The database side is the ledgers' contract, run on both (tests/storage/ledgers/test_story_*.py and
test_channels_*.py)."""


async def test_a_narrowed_room_places_each_change_by_its_record_and_withholds_the_outside_ones(
    services, actor
):
    room = await open_room(services, actor)
    story = room.story
    two = await services.chapters.add_chapter(actor, story.project_id, "Two")
    cove = await services.scenes.add_scene(actor, two.id, "Secret Cove")

    async def add_and_drop_a_line(agent: Actor) -> None:
        line = await services.lines.add_line(agent, story.first_scene_id, "Brief words")
        await services.lines.delete_line(agent, line.id)

    async def bring_the_cove_in(agent: Actor) -> None:
        await services.scenes.move_scene(agent, cove.id, story.chapter_id, 0)

    async def rename_the_hero(agent: Actor) -> None:
        await services.characters.update_character(agent, story.hero_id, name="Heroine")

    command = await carried_out(room, "Tidy up", add_and_drop_a_line, bring_the_cove_in, rename_the_hero)
    await services.channels.owner.update_settings(
        actor.user_id, room.channel.channel_id, scope=[story.chapter_id]
    )

    changes = await services.channels.guard.changes_of_command(room.agent("worker"), command.command_id)

    shown = [(c["entity_type"], c["action"], c["title"]) for c in changes]
    assert shown == [
        ("dialogue_line", "created", "Brief words"),
        ("dialogue_line", "deleted", "Brief words"),
        ("scene", "moved", OUTSIDE_TITLE),
        ("character", "updated", "Heroine"),
    ]
    withheld = changes[2]
    assert withheld["entity_id"] == cove.id and withheld["before"] is None and withheld["after"] is None

    joined = await services.channels.agent.join(room.agent("newcomer"), room.code)
    recorded = next(e for e in joined.conversation if e.kind == "changes_recorded")
    titles = [change["title"] for change in recorded.data["changes"]]
    assert titles == ["Brief words", "Brief words", OUTSIDE_TITLE, "Heroine"]
    assert "Secret Cove" not in str([e.data for e in joined.conversation])
