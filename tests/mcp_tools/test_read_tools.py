"""The read tools in memory: outline, chapter, scene, preview, assets, story check.

Each returns the contract's shape inside the envelope; unknown, foreign or malformed ids are
refused with the contract's codes and without revealing anything.
"""

from __future__ import annotations

import pytest

from romergo.common.actors import user_actor
from romergo.story import ChoiceSpec
from tests.support.story import small_story
from tests.support.tools import agent_of, furnished_story, story_state, unrevised


@pytest.fixture
async def story(services, actor):
    return await furnished_story(services, actor)


async def test_the_outline_lists_chapters_with_their_scenes_and_the_characters(
    services, author, actor, story
):
    later = await services.chapters.add_chapter(actor, story.project_id, "Two")
    villain = await services.characters.add_character(actor, story.project_id, "Abbot", "#112233")
    async with agent_of(services, "writer") as agent:
        outline = await agent.ok("romergo_get_project_outline", project_id=story.project_id)
    assert outline["project"] == {"id": story.project_id, "title": "Harbour Lights"}
    assert [c["id"] for c in outline["chapters"]] == [story.chapter_id, later.id]
    first = outline["chapters"][0]
    assert (first["title"], first["position"], first["music_asset_id"]) == ("One", 0, story.theme_id)
    assert unrevised(first["scenes"]) == [
        {"id": story.first_scene_id, "title": "Opening", "position": 0, "is_start": True, "is_ending": False},
        {
            "id": story.second_scene_id,
            "title": "Closing",
            "position": 1,
            "is_start": False,
            "is_ending": True,
        },
    ]
    assert outline["chapters"][1]["scenes"] == []
    assert [(c["id"], c["name"], c["color"]) for c in outline["characters"]] == [
        (villain.id, "Abbot", "#112233"),
        (story.hero_id, "Hero", outline["characters"][1]["color"]),
    ]


async def test_a_chapter_comes_with_its_scenes_in_order(services, author, actor, story):
    await services.scenes.move_scene(actor, story.second_scene_id, story.chapter_id, 0)
    async with agent_of(services, "writer") as agent:
        chapter = await agent.ok("romergo_get_chapter", chapter_id=story.chapter_id)
    assert {k: v for k, v in chapter.items() if k not in ("scenes", "revision")} == {
        "id": story.chapter_id,
        "project_id": story.project_id,
        "title": "One",
        "position": 0,
        "music_asset_id": story.theme_id,
        "background_asset_id": None,
    }
    assert [(s["id"], s["position"]) for s in chapter["scenes"]] == [
        (story.second_scene_id, 0),
        (story.first_scene_id, 1),
    ]


async def test_a_scene_resolves_speakers_media_sources_and_choice_targets(services, author, story):
    async with agent_of(services, "writer") as agent:
        scene = await agent.ok("romergo_get_scene", scene_id=story.first_scene_id)
    assert unrevised(scene["scene"]) == {
        "id": story.first_scene_id,
        "title": "Opening",
        "chapter_id": story.chapter_id,
        "position": 0,
        "is_start": True,
        "is_ending": False,
        "entry_effects": None,
    }
    assert scene["background"] == {
        "asset_id": story.backdrop_id,
        "name": "Harbour at dusk",
        "source": "scene",
    }
    assert scene["music"] == {"asset_id": story.theme_id, "name": "Sea theme", "source": "chapter"}
    assert unrevised(scene["lines"]) == [
        {
            "id": story.narration_id,
            "position": 0,
            "character_id": None,
            "speaker": None,
            "text": "The fog rolls in.",
            "condition": None,
        },
        {
            "id": story.spoken_id,
            "position": 1,
            "character_id": story.hero_id,
            "speaker": "Hero",
            "text": "Who goes there?",
            "condition": None,
        },
    ]
    [choice] = scene["choices"]
    assert choice["label"] == "Open the door" and choice["target_scene_id"] == story.second_scene_id
    assert choice["target_title"] == "Closing" and choice["id"].startswith("cho_")
    async with agent_of(services, "writer") as agent:
        closing = await agent.ok("romergo_get_scene", scene_id=story.second_scene_id)
    assert closing["background"] == {"asset_id": None, "name": None, "source": None}
    assert closing["lines"] == [] and closing["choices"] == []


async def test_the_preview_is_what_a_player_sees(services, author, actor, story):
    async with agent_of(services, "writer") as agent:
        opening = await agent.ok("romergo_preview_scene", scene_id=story.first_scene_id)
        closing = await agent.ok("romergo_preview_scene", scene_id=story.second_scene_id)
        await services.scenes.update_scene(actor, story.second_scene_id, is_ending=False)
        stuck = await agent.ok("romergo_preview_scene", scene_id=story.second_scene_id)
    assert opening == {
        "scene_id": story.first_scene_id,
        "title": "Opening",
        "screen": [
            "Background: Harbour at dusk",
            "Music: Sea theme (from the chapter)",
            "",
            "The fog rolls in.",
            "Hero: Who goes there?",
            "",
            "1. Open the door",
        ],
    }
    assert closing["screen"] == [
        "Background: none",
        "Music: Sea theme (from the chapter)",
        "",
        "",
        "(The story ends here.)",
    ]
    assert stuck["screen"][-1] == "(No choices: the story stops here without an ending.)"


async def test_assets_are_found_by_words_and_kind_with_where_they_are_used(services, author, story):
    async with agent_of(services, "writer") as agent:
        everything = await agent.ok("romergo_search_assets", project_id=story.project_id)
        music = await agent.ok("romergo_search_assets", project_id=story.project_id, kind="music")
        dusk = await agent.ok("romergo_search_assets", project_id=story.project_id, query="HARBOUR dusk")
        nothing = await agent.ok("romergo_search_assets", project_id=story.project_id, query="harbour sea")
    assert [a["name"] for a in everything["assets"]] == ["Bell", "Harbour at dusk", "Sea theme"]
    [theme] = music["assets"]
    assert theme == {
        "id": story.theme_id,
        "kind": "music",
        "name": "Sea theme",
        "tags": ["sea"],
        "mime": "audio/wav",
        "size": theme["size"],
        "used_by": [{"entity_type": "chapter", "id": story.chapter_id, "title": "One", "slot": "music"}],
    }
    assert [a["id"] for a in dusk["assets"]] == [story.backdrop_id]
    assert dusk["assets"][0]["used_by"] == [
        {"entity_type": "scene", "id": story.first_scene_id, "title": "Opening", "slot": "background"}
    ]
    assert nothing == {"assets": []}


async def test_the_story_check_reports_what_the_editor_reports(services, author, actor, story):
    gone = await services.scenes.add_scene(actor, story.chapter_id, "Nowhere")
    await services.scenes.set_choices(actor, story.second_scene_id, [ChoiceSpec("Onward", gone.id)])
    await services.scenes.update_scene(actor, story.second_scene_id, is_ending=False)
    await services.scenes.delete_scene(actor, gone.id)
    async with agent_of(services, "writer") as agent:
        result = await agent.ok("romergo_check_story", project_id=story.project_id)
    expected = await services.reads.check_story(actor, story.project_id)
    assert result["problems"] == [
        {
            "code": p.code,
            "severity": p.severity,
            "message": p.message,
            "scene_id": p.scene_id,
            "chapter_id": p.chapter_id,
        }
        for p in expected
    ]
    codes = {p["code"] for p in result["problems"]}
    assert {"dangling_target", "missing_background", "empty_scene"} <= codes
    dangling = next(p for p in result["problems"] if p["code"] == "dangling_target")
    assert (dangling["scene_id"], dangling["severity"]) == (story.second_scene_id, "error")


READS = [
    ("romergo_get_project_outline", "project_id"),
    ("romergo_get_chapter", "chapter_id"),
    ("romergo_get_scene", "scene_id"),
    ("romergo_preview_scene", "scene_id"),
    ("romergo_search_assets", "project_id"),
    ("romergo_check_story", "project_id"),
]


@pytest.mark.parametrize(("tool", "argument"), READS)
async def test_unknown_and_foreign_ids_are_not_found_alike(services, author, tool, argument):
    stranger = await services.accounts.create_user("stranger")
    theirs = await small_story(services, user_actor(stranger.id), "Their secret story")
    foreign = {
        "project_id": theirs.project_id,
        "chapter_id": theirs.chapter_id,
        "scene_id": theirs.first_scene_id,
    }[argument]
    async with agent_of(services, "writer") as agent:
        before = await story_state(services)
        unknown = await agent.error(tool, **{argument: "xyz_nothing"})
        other = await agent.error(tool, **{argument: foreign})
    assert unknown.startswith("[not_found] ") and other.startswith("[not_found] ")
    # The refusal reads the same whether the id exists elsewhere or nowhere.
    assert other.replace(foreign, "ID") == unknown.replace("xyz_nothing", "ID")
    assert "secret" not in other
    assert await story_state(services) == before


@pytest.mark.parametrize(("tool", "argument"), READS)
async def test_wrong_types_and_missing_ids_are_invalid_arguments(services, author, tool, argument):
    async with agent_of(services, "writer") as agent:
        wrong = await agent.error(tool, **{argument: 42})
        missing = await agent.error(tool)
        empty = await agent.error(tool, **{argument: ""})
    assert wrong.startswith(f"[invalid_argument] Bad arguments for {tool}: {argument}: ")
    assert missing == f"[invalid_argument] Bad arguments for {tool}: {argument}: Field required."
    assert empty == f"[invalid_argument] {argument} is required."


async def test_search_refuses_an_unknown_kind(services, author, story):
    async with agent_of(services, "writer") as agent:
        refused = await agent.error("romergo_search_assets", project_id=story.project_id, kind="video")
        wrong = await agent.error("romergo_search_assets", project_id=story.project_id, query=["sea"])
    assert refused.startswith("[invalid_argument] Bad arguments for romergo_search_assets: kind: ")
    assert wrong.startswith("[invalid_argument] Bad arguments for romergo_search_assets: query: ")


async def test_search_story_finds_text_grouped_by_scene_with_spans(services, actor, story):
    async with agent_of(services, "writer") as agent:
        found = await agent.ok("romergo_search_story", project_id=story.project_id, query="O")
        words = await agent.ok(
            "romergo_search_story",
            project_id=story.project_id,
            query="goes",
            whole_word=True,
            fields=["line"],
        )
        bad = await agent.error("romergo_search_story", project_id=story.project_id, query="(", regex=True)
        empty = await agent.error("romergo_search_story", project_id=story.project_id, query="")
    (opening, *_) = found["scenes"]
    assert (opening["scene_id"], opening["scene_title"], opening["chapter_title"]) == (
        story.first_scene_id,
        "Opening",
        "One",
    )
    assert [m["field"] for m in opening["matches"]][:3] == ["scene_title", "line", "line"]
    title = opening["matches"][0]
    assert title["text"] == "Opening" and title["spans"] == [[0, 1]]  # case ignored: "O" finds "O"
    assert found["total_matches"] >= found["total_texts"] >= 3
    [[spoken]] = [group["matches"] for group in words["scenes"]]
    assert (spoken["text"], spoken["spans"], spoken["speaker"]) == ("Who goes there?", [[4, 8]], "Hero")
    assert bad.startswith("[invalid_argument] ") and "regular expression is not valid" in bad
    assert empty.startswith("[invalid_argument] ")


async def test_the_agent_lists_variables_and_simulates_a_play_through(services, actor, story):
    await services.variables.add_variable(
        actor, story.project_id, "has_key", "flag", description="Found later"
    )
    await services.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("Unlock the door", story.second_scene_id, "has_key")]
    )
    async with agent_of(services, "writer") as agent:
        listed = await agent.ok("romergo_list_variables", project_id=story.project_id)
        locked = await agent.ok("romergo_simulate_playthrough", project_id=story.project_id)
        opened = await agent.ok(
            "romergo_simulate_playthrough",
            project_id=story.project_id,
            state={"has_key": True},
            choices=["1"],
        )
        wrong = await agent.error(
            "romergo_simulate_playthrough", project_id=story.project_id, state={"gold": 3}
        )
    assert unrevised(listed["variables"]) == [
        {
            "id": listed["variables"][0]["id"],
            "name": "has_key",
            "type": "flag",
            "initial": False,
            "description": "Found later",
        }
    ]
    assert locked["outcome"] == "stuck" and "Every choice here is hidden" in locked["message"]
    (first,) = locked["steps"]
    assert (first["title"], first["state"], first["picked"]) == ("Opening", {"has_key": False}, None)
    assert first["choices"] == [
        {
            "label": "Unlock the door",
            "target_scene_id": story.second_scene_id,
            "shown": False,
            "condition": "has_key",
        }
    ]
    assert [(s["title"], s["picked"]) for s in opened["steps"]] == [
        ("Opening", "Unlock the door"),
        ("Closing", None),
    ]
    assert opened["outcome"] == "ending"
    assert wrong.startswith("[invalid_argument] ") and "no variable called 'gold'" in wrong
