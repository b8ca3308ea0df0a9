"""The edit tools in memory: chapters, scenes, dialogue, choices, characters. Each goes through
the same service as the editor, so each change is validated the same way and recorded as a
revision made by the agent with the tool's name."""

from __future__ import annotations

import pytest

from tests.support.story import revisions
from tests.support.tools import agent_of, furnished_story, unrevised


@pytest.fixture
async def story(services, actor):
    return await furnished_story(services, actor)


async def new_revisions(services, project_id, seen):
    return [
        (r.entity_type, r.entity_id, r.action, r.tool, r.actor_type)
        for r in (await revisions(services, project_id))[seen:]
    ]


async def test_chapters_are_added_renamed_and_deleted_as_the_agent(services, author, actor, story):
    seen = len(await revisions(services, story.project_id))
    async with agent_of(services, "writer") as agent:
        added = await agent.ok(
            "romergo_add_chapter", project_id=story.project_id, title=" Prologue ", position=0
        )
        renamed = await agent.ok("romergo_update_chapter", chapter_id=added["id"], title="Before it all")
        deleted = await agent.ok("romergo_delete_chapter", chapter_id=story.chapter_id)
        gone = await agent.error("romergo_get_chapter", chapter_id=story.chapter_id)
    assert unrevised(added) == {
        "entity_type": "chapter",
        "id": added["id"],
        "project_id": story.project_id,
        "title": "Prologue",
        "position": 0,
        "music_asset_id": None,
        "background_asset_id": None,
    }
    assert added["id"].startswith("chp_") and unrevised(renamed) == unrevised(added) | {
        "title": "Before it all"
    }
    assert deleted == {"entity_type": "chapter", "id": story.chapter_id, "deleted": True}
    assert gone.startswith("[not_found] ")
    outline = await services.reads.outline(actor, story.project_id)
    assert [(c.chapter.id, c.chapter.title, c.chapter.position) for c in outline.chapters] == [
        (added["id"], "Before it all", 0)
    ]
    assert await new_revisions(services, story.project_id, seen) == [
        ("chapter", added["id"], "created", "romergo_add_chapter", "agent"),
        ("chapter", added["id"], "updated", "romergo_update_chapter", "agent"),
        ("chapter", story.chapter_id, "deleted", "romergo_delete_chapter", "agent"),
    ]


async def test_scenes_are_added_marked_moved_and_deleted(services, author, actor, story):
    second = await services.chapters.add_chapter(actor, story.project_id, "Two")
    async with agent_of(services, "writer") as agent:
        added = await agent.ok("romergo_add_scene", chapter_id=story.chapter_id, title="Middle", position=1)
        started = await agent.ok("romergo_update_scene", scene_id=added["id"], is_start=True)
        renamed = await agent.ok("romergo_update_scene", scene_id=added["id"], title="The middle")
        moved = await agent.ok("romergo_move_scene", scene_id=added["id"], chapter_id=second.id, position=0)
        deleted = await agent.ok("romergo_delete_scene", scene_id=story.second_scene_id)
        check = await agent.ok("romergo_check_story", project_id=story.project_id)
    assert unrevised(added) == {
        "entity_type": "scene",
        "id": added["id"],
        "chapter_id": story.chapter_id,
        "title": "Middle",
        "position": 1,
        "is_start": False,
        "is_ending": False,
        "background_asset_id": None,
        "music_asset_id": None,
        "entry_effects": None,
    }
    assert unrevised(started) == unrevised(added) | {"is_start": True}
    assert unrevised(renamed) == unrevised(started) | {
        "title": "The middle"
    }  # null flags left the marks alone
    assert unrevised(moved) == unrevised(renamed) | {"chapter_id": second.id, "position": 0}
    assert deleted == {"entity_type": "scene", "id": story.second_scene_id, "deleted": True}
    opening = await services.scenes.scene_view(actor, story.first_scene_id)
    assert opening.scene.is_start is False  # the start mark moved
    assert [s.id for s in (await services.chapters.chapter_outline(actor, story.chapter_id)).scenes] == [
        story.first_scene_id
    ]
    # The choice into the deleted scene is left dangling, and the check says so.
    assert any(
        p["code"] == "dangling_target" and p["scene_id"] == story.first_scene_id for p in check["problems"]
    )


async def test_dialogue_lines_keep_what_null_leaves_and_empty_speaker_is_narration(services, author, story):
    scene_id = story.first_scene_id
    async with agent_of(services, "writer") as agent:
        spoken = await agent.ok(
            "romergo_add_dialogue_line",
            scene_id=scene_id,
            text="Hello.",
            character_id=story.hero_id,
            position=0,
        )
        narration = await agent.ok(
            "romergo_add_dialogue_line", scene_id=scene_id, text="Rain.", character_id=""
        )
        retexted = await agent.ok("romergo_update_dialogue_line", line_id=spoken["id"], text="Hello again.")
        narrated = await agent.ok("romergo_update_dialogue_line", line_id=spoken["id"], character_id="")
        spoken_again = await agent.ok(
            "romergo_update_dialogue_line", line_id=spoken["id"], character_id=story.hero_id
        )
        literal = await agent.ok("romergo_update_dialogue_line", line_id=narration["id"], text="null")
        literal_true = await agent.ok("romergo_add_dialogue_line", scene_id=scene_id, text="true")
        moved = await agent.ok("romergo_move_dialogue_line", line_id=spoken["id"], position=99)
        deleted = await agent.ok("romergo_delete_dialogue_line", line_id=story.narration_id)
        scene = await agent.ok("romergo_get_scene", scene_id=scene_id)
    assert unrevised(spoken) == {
        "entity_type": "dialogue_line",
        "id": spoken["id"],
        "scene_id": scene_id,
        "position": 0,
        "character_id": story.hero_id,
        "text": "Hello.",
        "condition": None,
    }
    assert narration["character_id"] is None and narration["position"] == 3
    assert unrevised(retexted) == unrevised(spoken) | {"text": "Hello again."}  # the speaker stayed
    assert unrevised(narrated) == unrevised(retexted) | {"character_id": None}  # the text stayed
    assert spoken_again["character_id"] == story.hero_id
    assert literal["text"] == "null" and literal_true["text"] == "true"  # text stays text
    assert moved["position"] == 4
    assert deleted == {"entity_type": "dialogue_line", "id": story.narration_id, "deleted": True}
    assert [(line["text"], line["speaker"]) for line in scene["lines"]] == [
        ("Who goes there?", "Hero"),
        ("null", None),
        ("true", None),
        ("Hello again.", "Hero"),
    ]


async def test_choices_are_replaced_as_a_whole(services, author, actor, story):
    seen = len(await revisions(services, story.project_id))
    choices = [
        {"label": "Go back", "target_scene_id": story.first_scene_id},
        {"label": "Think", "target_scene_id": None},
    ]
    async with agent_of(services, "writer") as agent:
        first = await agent.ok("romergo_set_choices", scene_id=story.second_scene_id, choices=choices)
        same = await agent.ok("romergo_set_choices", scene_id=story.second_scene_id, choices=choices)
        scene = await agent.ok("romergo_get_scene", scene_id=story.second_scene_id)
        cleared = await agent.ok("romergo_set_choices", scene_id=story.first_scene_id, choices=[])
    assert first["entity_type"] == "scene" and first["id"] == story.second_scene_id
    assert [
        (c["entity_type"], c["position"], c["label"], c["target_scene_id"]) for c in first["choices"]
    ] == [
        ("choice", 0, "Go back", story.first_scene_id),
        ("choice", 1, "Think", None),
    ]
    assert same == first  # nothing changed, so the choices keep their ids
    assert [(c["id"], c["target_title"]) for c in scene["choices"]] == [
        (first["choices"][0]["id"], "Opening"),
        (first["choices"][1]["id"], None),
    ]
    assert unrevised(cleared) == {"entity_type": "scene", "id": story.first_scene_id, "choices": []}
    assert await new_revisions(services, story.project_id, seen) == [
        ("scene", story.second_scene_id, "updated", "romergo_set_choices", "agent"),
        ("scene", story.first_scene_id, "updated", "romergo_set_choices", "agent"),
    ]


async def test_characters_are_added_and_changed_with_unique_names(services, author, story):
    async with agent_of(services, "writer") as agent:
        added = await agent.ok(
            "romergo_add_character", project_id=story.project_id, name="Mara", color="#A1B2C3"
        )
        picked = await agent.ok("romergo_add_character", project_id=story.project_id, name="Tom")
        renamed = await agent.ok("romergo_update_character", character_id=added["id"], name="Mara Vell")
        recoloured = await agent.ok("romergo_update_character", character_id=added["id"], color="#000000")
        clash = await agent.error("romergo_update_character", character_id=picked["id"], name="mara vell")
    assert unrevised(added) == {
        "entity_type": "character",
        "id": added["id"],
        "project_id": story.project_id,
        "name": "Mara",
        "color": "#a1b2c3",
    }
    assert picked["color"].startswith("#") and len(picked["color"]) == 7
    assert unrevised(renamed) == unrevised(added) | {"name": "Mara Vell"}
    assert unrevised(recoloured) == unrevised(renamed) | {"color": "#000000"}
    assert clash == '[conflict] A character named "Mara Vell" already exists in this project.'
