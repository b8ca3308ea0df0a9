"""Every modifying tool refuses bad input with the contract's error code and changes nothing:
unknown ids, another user's ids, ids from the caller's other project, wrong types, over-long
text, bad colours, wrong asset kinds. The whole database is compared before and after."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.media import MP3_BASE64
from tests.support.tools import World, agent_of, story_state, world

LONG_TITLE = "x" * 201
LONG_LINE = "y" * 2001
Case = tuple[Callable[[World], dict[str, Any]], str]

INVALID = "invalid_argument"
NOT_FOUND = "not_found"

CASES: dict[str, list[Case]] = {
    "romergo_add_chapter": [
        (lambda w: {"project_id": "prj_nope", "title": "T"}, NOT_FOUND),
        (lambda w: {"project_id": w.theirs.project_id, "title": "T"}, NOT_FOUND),
        (lambda w: {"project_id": w.story.project_id, "title": LONG_TITLE}, INVALID),
        (lambda w: {"project_id": w.story.project_id, "title": "  "}, INVALID),
        (lambda w: {"project_id": w.story.project_id, "title": "two\nlines"}, INVALID),
        (lambda w: {"project_id": w.story.project_id, "title": 7}, INVALID),
        (lambda w: {"project_id": w.story.project_id, "title": "T", "position": -1}, INVALID),
        (lambda w: {"project_id": w.story.project_id, "title": "T", "position": "first"}, INVALID),
    ],
    "romergo_update_chapter": [
        (lambda w: {"chapter_id": "chp_nope", "title": "T"}, NOT_FOUND),
        (lambda w: {"chapter_id": w.theirs.chapter_id, "title": "T"}, NOT_FOUND),
        (lambda w: {"chapter_id": w.story.chapter_id, "title": LONG_TITLE}, INVALID),
        (lambda w: {"chapter_id": w.story.chapter_id, "title": None}, INVALID),
        (lambda w: {"chapter_id": w.story.chapter_id}, INVALID),
    ],
    "romergo_delete_chapter": [
        (lambda w: {"chapter_id": "chp_nope"}, NOT_FOUND),
        (lambda w: {"chapter_id": w.theirs.chapter_id}, NOT_FOUND),
        (lambda w: {"chapter_id": 5}, INVALID),
    ],
    "romergo_add_scene": [
        (lambda w: {"chapter_id": "chp_nope", "title": "T"}, NOT_FOUND),
        (lambda w: {"chapter_id": w.theirs.chapter_id, "title": "T"}, NOT_FOUND),
        (lambda w: {"chapter_id": w.story.chapter_id, "title": LONG_TITLE}, INVALID),
        (lambda w: {"chapter_id": w.story.chapter_id, "title": "T", "position": True}, INVALID),
    ],
    "romergo_update_scene": [
        (lambda w: {"scene_id": "scn_nope", "title": "T"}, NOT_FOUND),
        (lambda w: {"scene_id": w.theirs.first_scene_id, "title": "T"}, NOT_FOUND),
        (lambda w: {"scene_id": w.story.first_scene_id, "title": LONG_TITLE}, INVALID),
        (lambda w: {"scene_id": w.story.first_scene_id, "title": ""}, INVALID),
        (lambda w: {"scene_id": w.story.second_scene_id, "is_start": "yes"}, INVALID),
        (lambda w: {"scene_id": w.story.first_scene_id, "is_ending": 1}, INVALID),
    ],
    "romergo_move_scene": [
        (
            lambda w: {"scene_id": w.theirs.first_scene_id, "chapter_id": w.story.chapter_id, "position": 0},
            NOT_FOUND,
        ),
        (
            lambda w: {
                "scene_id": w.story.first_scene_id,
                "chapter_id": w.own_other.chapter_id,
                "position": 0,
            },
            NOT_FOUND,
        ),
        (
            lambda w: {"scene_id": w.story.first_scene_id, "chapter_id": w.theirs.chapter_id, "position": 0},
            NOT_FOUND,
        ),
        (
            lambda w: {"scene_id": w.story.first_scene_id, "chapter_id": w.story.chapter_id, "position": -1},
            INVALID,
        ),
        (lambda w: {"scene_id": w.story.first_scene_id, "chapter_id": w.story.chapter_id}, INVALID),
    ],
    "romergo_delete_scene": [
        (lambda w: {"scene_id": "scn_nope"}, NOT_FOUND),
        (lambda w: {"scene_id": w.theirs.first_scene_id}, NOT_FOUND),
    ],
    "romergo_add_dialogue_line": [
        (lambda w: {"scene_id": "scn_nope", "text": "Hi"}, NOT_FOUND),
        (lambda w: {"scene_id": w.theirs.first_scene_id, "text": "Hi"}, NOT_FOUND),
        (lambda w: {"scene_id": w.story.first_scene_id, "text": LONG_LINE}, INVALID),
        (lambda w: {"scene_id": w.story.first_scene_id, "text": "   "}, INVALID),
        (lambda w: {"scene_id": w.story.first_scene_id, "text": "bell \x07"}, INVALID),
        (
            lambda w: {"scene_id": w.story.first_scene_id, "text": "Hi", "character_id": w.own_other.hero_id},
            NOT_FOUND,
        ),
        (
            lambda w: {"scene_id": w.story.first_scene_id, "text": "Hi", "character_id": w.theirs.hero_id},
            NOT_FOUND,
        ),
    ],
    "romergo_update_dialogue_line": [
        (lambda w: {"line_id": "lin_nope", "text": "Hi"}, NOT_FOUND),
        (lambda w: {"line_id": w.their_line_id, "text": "Hi"}, NOT_FOUND),
        (lambda w: {"line_id": w.their_line_id, "character_id": ""}, NOT_FOUND),
        (lambda w: {"line_id": w.story.spoken_id, "text": LONG_LINE}, INVALID),
        (lambda w: {"line_id": w.story.spoken_id, "character_id": w.theirs.hero_id}, NOT_FOUND),
        (lambda w: {"line_id": w.story.spoken_id, "text": ["Hi"]}, INVALID),
    ],
    "romergo_move_dialogue_line": [
        (lambda w: {"line_id": "lin_nope", "position": 0}, NOT_FOUND),
        (lambda w: {"line_id": w.their_line_id, "position": 0}, NOT_FOUND),
        (lambda w: {"line_id": w.story.spoken_id, "position": -1}, INVALID),
        (lambda w: {"line_id": w.story.spoken_id, "position": 2.5}, INVALID),
    ],
    "romergo_delete_dialogue_line": [
        (lambda w: {"line_id": "lin_nope"}, NOT_FOUND),
        (lambda w: {"line_id": w.their_line_id}, NOT_FOUND),
    ],
    "romergo_set_choices": [
        (lambda w: {"scene_id": "scn_nope", "choices": []}, NOT_FOUND),
        (lambda w: {"scene_id": w.theirs.first_scene_id, "choices": []}, NOT_FOUND),
        (lambda w: choices(w, [("Go", w.own_other.first_scene_id)]), NOT_FOUND),
        (
            lambda w: choices(w, [("Go", w.story.second_scene_id), ("Steal", w.theirs.first_scene_id)]),
            NOT_FOUND,
        ),
        (lambda w: choices(w, [("Go", w.story.second_scene_id)] * 21), INVALID),
        (lambda w: choices(w, [(LONG_TITLE, w.story.second_scene_id)]), INVALID),
        (lambda w: {"scene_id": w.story.first_scene_id, "choices": [{"target_scene_id": None}]}, INVALID),
        (lambda w: {"scene_id": w.story.first_scene_id, "choices": "Go north"}, INVALID),
    ],
    "romergo_add_character": [
        (lambda w: {"project_id": "prj_nope", "name": "Ann"}, NOT_FOUND),
        (lambda w: {"project_id": w.theirs.project_id, "name": "Ann"}, NOT_FOUND),
        (lambda w: {"project_id": w.story.project_id, "name": LONG_TITLE}, INVALID),
        (lambda w: {"project_id": w.story.project_id, "name": "Ann", "color": "red"}, INVALID),
        (lambda w: {"project_id": w.story.project_id, "name": "HERO"}, "conflict"),
    ],
    "romergo_update_character": [
        (lambda w: {"character_id": "chr_nope", "name": "Ann"}, NOT_FOUND),
        (lambda w: {"character_id": w.theirs.hero_id, "name": "Ann"}, NOT_FOUND),
        (lambda w: {"character_id": w.story.hero_id, "name": LONG_TITLE}, INVALID),
        (lambda w: {"character_id": w.story.hero_id, "color": "#12345g"}, INVALID),
    ],
    "romergo_set_scene_background": [
        (lambda w: {"scene_id": "scn_nope", "asset_id": None}, NOT_FOUND),
        (lambda w: {"scene_id": w.theirs.first_scene_id, "asset_id": None}, NOT_FOUND),
        (lambda w: {"scene_id": w.story.second_scene_id, "asset_id": w.story.theme_id}, INVALID),
        (lambda w: {"scene_id": w.story.second_scene_id, "asset_id": w.own_other_music_id}, NOT_FOUND),
        (lambda w: {"scene_id": w.story.second_scene_id, "asset_id": w.their_asset_id}, NOT_FOUND),
        (lambda w: {"scene_id": w.story.second_scene_id, "asset_id": "ast_nope"}, NOT_FOUND),
        (lambda w: {"scene_id": w.story.second_scene_id}, INVALID),
    ],
    "romergo_set_scene_music": [
        (lambda w: {"scene_id": w.theirs.first_scene_id, "asset_id": None}, NOT_FOUND),
        (lambda w: {"scene_id": w.story.first_scene_id, "asset_id": w.story.bell_id}, INVALID),
        (lambda w: {"scene_id": w.story.first_scene_id, "asset_id": w.story.backdrop_id}, INVALID),
        (lambda w: {"scene_id": w.story.first_scene_id, "asset_id": w.their_asset_id}, NOT_FOUND),
    ],
    "romergo_set_chapter_music": [
        (lambda w: {"chapter_id": w.theirs.chapter_id, "asset_id": None}, NOT_FOUND),
        (lambda w: {"chapter_id": w.story.chapter_id, "asset_id": w.their_asset_id}, NOT_FOUND),
        (lambda w: {"chapter_id": w.story.chapter_id, "asset_id": w.story.backdrop_id}, INVALID),
    ],
    "romergo_import_asset": [
        (lambda w: asset(w, project_id="prj_nope"), NOT_FOUND),
        (lambda w: asset(w, project_id=w.theirs.project_id), NOT_FOUND),
        (lambda w: asset(w, name=LONG_TITLE), INVALID),
        (lambda w: asset(w, tags=[f"t{n}" for n in range(21)]), INVALID),
        (lambda w: asset(w, tags=["x" * 41]), INVALID),
        (lambda w: asset(w, tags="sea"), INVALID),
    ],
    "romergo_delete_asset": [
        (lambda w: {"asset_id": "ast_nope"}, NOT_FOUND),
        (lambda w: {"asset_id": w.their_asset_id}, NOT_FOUND),
    ],
    "romergo_publish_project": [
        (lambda w: {"project_id": "prj_nope"}, NOT_FOUND),
        (lambda w: {"project_id": w.theirs.project_id}, NOT_FOUND),
    ],
    "romergo_unpublish_project": [
        (lambda w: {"project_id": w.theirs.project_id}, NOT_FOUND),
        (lambda w: {"project_id": w.story.project_id}, "conflict"),
    ],
}


def choices(w: World, pairs: list[tuple[str, str | None]]) -> dict[str, Any]:
    listed = [{"label": label, "target_scene_id": target} for label, target in pairs]
    return {"scene_id": w.story.first_scene_id, "choices": listed}


def asset(w: World, **changes: Any) -> dict[str, Any]:
    return {
        "project_id": w.story.project_id,
        "kind": "sound",
        "name": "Ping",
        "data_base64": MP3_BASE64,
    } | changes


@pytest.mark.parametrize("tool", sorted(CASES))
async def test_bad_input_is_refused_with_its_code_and_changes_nothing(services, author, actor, tool):
    built = await world(services, actor)
    async with agent_of(services, "writer") as agent:
        before = await story_state(services)
        for make, code in CASES[tool]:
            arguments = make(built)
            refused = await agent.error(tool, **arguments)
            assert refused.startswith(f"[{code}] "), (arguments, refused)
            if code == NOT_FOUND:
                assert "Their" not in refused and "stranger" not in refused
            assert await story_state(services) == before, arguments


async def test_over_long_text_names_the_limit(services, author, actor):
    built = await world(services, actor)
    async with agent_of(services, "writer") as agent:
        title = await agent.error("romergo_add_scene", chapter_id=built.story.chapter_id, title=LONG_TITLE)
        line = await agent.error(
            "romergo_add_dialogue_line", scene_id=built.story.first_scene_id, text=LONG_LINE
        )
    assert title == "[invalid_argument] Scene title is 201 characters long; the limit is 200."
    assert line == "[invalid_argument] Line text is 2001 characters long; the limit is 2000."
