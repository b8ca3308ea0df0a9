"""Choosing a room's reach: what the owner may send, and the words that describe it."""

from __future__ import annotations

import pytest

from romergo.channels.reach import chapters_words, describe_reach
from romergo.common.errors import RomergoError
from tests.support.channels import open_room
from tests.support.story import database_state, small_story

DATABASES = ("sqlite",)
"""The database side is the ledgers' contract, run on both (tests/storage/ledgers/test_story_*.py and
test_channels_*.py)."""


async def test_a_room_covers_the_whole_project_unless_chapters_are_chosen(services, actor):
    room = await open_room(services, actor)
    assert room.channel.scope is None
    chosen = await services.channels.owner.create_channel(
        actor.user_id, room.story.project_id, scope={"chapter_ids": [room.story.chapter_id]}
    )
    assert chosen.scope == {"chapter_ids": [room.story.chapter_id]}


async def test_chapters_are_kept_in_story_order_whatever_order_they_came_in(services, actor):
    room = await open_room(services, actor)
    two = await services.chapters.add_chapter(actor, room.story.project_id, "Two")
    three = await services.chapters.add_chapter(actor, room.story.project_id, "Three")
    view = await services.channels.owner.update_settings(
        actor.user_id, room.channel.channel_id, scope=[three.id, room.story.chapter_id, three.id]
    )
    assert view.scope == {"chapter_ids": [room.story.chapter_id, three.id]}
    assert two.id not in view.scope["chapter_ids"]


@pytest.mark.parametrize(
    ("scope", "code", "words"),
    [
        ([], "invalid_argument", "non-empty list"),
        ({"chapter_ids": []}, "invalid_argument", "non-empty list"),
        ("chp_x", "invalid_argument", "non-empty list"),
        ({"chapter_ids": [1]}, "invalid_argument", "non-empty list"),
        ({"chapters": ["x"]}, "invalid_argument", "Unknown scope field"),
        (["chp_missing"], "not_found", 'Chapter "chp_missing"'),
        (["x"] * 501, "invalid_argument", "at most 500"),
    ],
)
async def test_a_bad_scope_is_refused_and_changes_nothing(services, actor, scope, code, words):
    room = await open_room(services, actor)
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await services.channels.owner.update_settings(actor.user_id, room.channel.channel_id, scope=scope)
    assert refused.value.code == code and words in refused.value.message
    with pytest.raises(RomergoError):
        await services.channels.owner.create_channel(actor.user_id, room.story.project_id, scope=scope)
    assert await database_state(services) == before


async def test_a_chapter_of_another_project_is_not_part_of_this_one(services, actor):
    room = await open_room(services, actor)
    other = await small_story(services, actor, "Elsewhere")
    with pytest.raises(RomergoError) as refused:
        await services.channels.owner.update_settings(
            actor.user_id, room.channel.channel_id, scope=[other.chapter_id]
        )
    assert refused.value.code == "not_found"


async def test_leaving_the_scope_out_of_a_settings_change_keeps_it(services, actor):
    room = await open_room(services, actor)
    owner = services.channels.owner
    await owner.update_settings(actor.user_id, room.channel.channel_id, scope=[room.story.chapter_id])
    view = await owner.update_settings(actor.user_id, room.channel.channel_id, {"publish": True})
    assert view.scope == {"chapter_ids": [room.story.chapter_id]}


def test_the_reach_in_plain_words():
    order = ["c1", "c2", "c3", "c4", "c5"]
    assert chapters_words(None, order) == "Whole project"
    assert chapters_words({"chapter_ids": ["c2"]}, order) == "Chapter 2"
    assert chapters_words({"chapter_ids": ["c2", "c3"]}, order) == "Chapters 2–3"
    assert chapters_words({"chapter_ids": ["c1", "c3", "c4", "c5"]}, order) == "Chapters 1, 3–5"
    assert chapters_words({"chapter_ids": ["gone"]}, order).startswith("No chapters")
    permissions = {"read": True, "edit": True, "media": True, "publish": True, "delete": False}
    assert (
        describe_reach({"chapter_ids": ["c2", "c3"]}, order, permissions, "publish_and_delete")
        == "Chapters 2–3, read + edit + media + publish, confirm publish and delete"
    )
    assert describe_reach(None, order, dict.fromkeys(permissions, False), "none") == (
        "Whole project, nothing allowed, no confirmations"
    )


async def test_selected_words_on_a_page_outside_the_room_do_not_travel(services, actor):
    room = await open_room(services, actor)
    two = await services.chapters.add_chapter(actor, room.story.project_id, "Two")
    await services.channels.owner.update_settings(actor.user_id, room.channel.channel_id, scope=[two.id])

    def on_scene(scene_id: str, chapter_id: str) -> dict[str, object]:
        selection = {
            "text": "a secret line",
            "entity_type": "scene",
            "entity_id": scene_id,
            "start": 0,
            "end": 2,
        }
        route = f"/projects/{room.story.project_id}/scenes/{scene_id}"
        return {
            "route": route,
            "surface": "scene",
            "scene_id": scene_id,
            "chapter_id": chapter_id,
            "selection": selection,
        }

    outside = on_scene(room.story.first_scene_id, two.id)  # the page lies: its scene is in chapter One
    sent = await room.send("Change this", context=outside)
    assert sent.context["selection"] is None
    assert sent.context["scene_id"] == room.story.first_scene_id
    inside_scene = await services.scenes.add_scene(actor, two.id, "Harbour")
    kept = await room.send("Change this", context=on_scene(inside_scene.id, two.id))
    assert kept.context["selection"]["text"] == "a secret line"
