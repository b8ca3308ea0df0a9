"""Every domain tool over real HTTP against a running server, with personal access tokens made by
the CLI: each tool once on the happy path, the envelope through the real transport, a 200 KB scene
in pages, and two users who cannot read or change each other's projects through any tool."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.media import MP3_BASE64
from tests.support.oauth import add_user, mcp_client, personal_token
from tests.support.server import RunningServer
from tests.support.story import TINY_PNG, TINY_WAV
from tests.support.tools import Agent, text_of, untrusted

SERVER_ENV = {"ROMERGO_RATE_LIMIT_PER_MINUTE": "100000"}
ALL = ("--scopes", "read,edit,media,publish,delete")
HINDI_GEORGIAN_EMOJI = "नमस्ते — გამარჯობა — 👩‍👩‍👧‍👦"
SHOWN = "नमस्ते — გამარჯობა — 👩\\u{200d}👩\\u{200d}👧\\u{200d}👦"
"""The same as an agent reads it: every script as it is, the joiners shown."""


@pytest.fixture(scope="module")
def tokens(server: RunningServer) -> dict[str, str]:
    add_user(server, "bob")
    return {name: personal_token(server, name, *ALL) for name in ("ada", "bob")}


@asynccontextmanager
async def connected(server: RunningServer, token: str) -> AsyncIterator[Agent]:
    async with mcp_client(server.base_url, token) as client:
        yield Agent(client)


@dataclass
class Ids:
    project_id: str
    chapter_id: str
    scene_id: str
    line_id: str
    character_id: str
    background_id: str
    music_id: str
    variable_id: str


async def demo_ids(agent: Agent) -> Ids:
    [project] = (await agent.ok("romergo_list_projects"))["projects"]
    outline = await agent.ok("romergo_get_project_outline", project_id=project["id"])
    chapter = outline["chapters"][0]
    scene = await agent.ok("romergo_get_scene", scene_id=chapter["scenes"][0]["id"])
    assets = (await agent.ok("romergo_search_assets", project_id=project["id"]))["assets"]
    return Ids(
        project_id=project["id"],
        chapter_id=chapter["id"],
        scene_id=scene["scene"]["id"],
        line_id=scene["lines"][0]["id"],
        character_id=outline["characters"][0]["id"],
        background_id=next(a["id"] for a in assets if a["kind"] == "background"),
        music_id=next(a["id"] for a in assets if a["kind"] == "music"),
        variable_id=(await agent.ok("romergo_list_variables", project_id=project["id"]))["variables"][0][
            "id"
        ],
    )


async def snapshot(agent: Agent, project_id: str) -> dict[str, Any]:
    """Everything the owner can read of a project: compare it before and after to see a change."""
    outline = await agent.ok("romergo_get_project_outline", project_id=project_id)
    scene_ids = [s["id"] for chapter in outline["chapters"] for s in chapter["scenes"]]
    return {
        "projects": await agent.ok("romergo_list_projects"),
        "outline": outline,
        "scenes": [await agent.ok("romergo_get_scene", scene_id=scene_id) for scene_id in scene_ids],
        "assets": await agent.ok("romergo_search_assets", project_id=project_id),
        "variables": await agent.ok("romergo_list_variables", project_id=project_id),
    }


async def test_the_read_tools_over_http(server, tokens):
    async with connected(server, tokens["ada"]) as ada:
        ids = await demo_ids(ada)
        chapter = await ada.ok("romergo_get_chapter", chapter_id=ids.chapter_id)
        first = await ada.call("romergo_get_scene", scene_id=ids.scene_id)
        second = await ada.call("romergo_get_scene", scene_id=ids.scene_id)
        preview = await ada.ok("romergo_preview_scene", scene_id=ids.scene_id)
        check = await ada.ok("romergo_check_story", project_id=ids.project_id)
        assets = await ada.ok("romergo_search_assets", project_id=ids.project_id, kind="background")
    assert chapter["id"] == ids.chapter_id and chapter["scenes"][0]["id"] == ids.scene_id
    assert untrusted(first)["nonce"] != untrusted(second)["nonce"]
    assert text_of(first).endswith(f"</untrusted-data-{untrusted(first)['nonce']}>")
    background = untrusted(first)["data"]["background"]
    [used] = [a for a in assets["assets"] if a["id"] == background["asset_id"]]
    assert {
        "entity_type": "scene",
        "id": ids.scene_id,
        "title": chapter["scenes"][0]["title"],
        "slot": "background",
    } in used["used_by"]
    assert preview["screen"][0].startswith("Background: ") and preview["scene_id"] == ids.scene_id
    assert isinstance(check["problems"], list)


async def test_the_edit_tools_over_http(server, tokens):
    async with connected(server, tokens["ada"]) as ada:
        ids = await demo_ids(ada)
        chapter = await ada.ok("romergo_add_chapter", project_id=ids.project_id, title="HTTP chapter")
        renamed = await ada.ok("romergo_update_chapter", chapter_id=chapter["id"], title="Renamed")
        scene = await ada.ok("romergo_add_scene", chapter_id=chapter["id"], title="Here")
        other = await ada.ok("romergo_add_scene", chapter_id=chapter["id"], title="There")
        ending = await ada.ok("romergo_update_scene", scene_id=other["id"], is_ending=True)
        moved = await ada.ok("romergo_move_scene", scene_id=other["id"], chapter_id=chapter["id"], position=0)
        hero = await ada.ok("romergo_add_character", project_id=ids.project_id, name="Wire")
        recoloured = await ada.ok("romergo_update_character", character_id=hero["id"], color="#101010")
        line = await ada.ok(
            "romergo_add_dialogue_line",
            scene_id=scene["id"],
            text=HINDI_GEORGIAN_EMOJI,
            character_id=hero["id"],
        )
        narrated = await ada.ok("romergo_update_dialogue_line", line_id=line["id"], character_id="")
        spare = await ada.ok("romergo_add_dialogue_line", scene_id=scene["id"], text="Spare")
        moved_line = await ada.ok("romergo_move_dialogue_line", line_id=spare["id"], position=0)
        dropped = await ada.ok("romergo_delete_dialogue_line", line_id=spare["id"])
        choices = await ada.ok(
            "romergo_set_choices",
            scene_id=scene["id"],
            choices=[{"label": "Onward", "target_scene_id": other["id"]}],
        )
        read = await ada.ok("romergo_get_scene", scene_id=scene["id"])
    assert renamed["title"] == "Renamed" and ending["is_ending"] is True and moved["position"] == 0
    assert recoloured["color"] == "#101010"
    assert line["text"] == SHOWN and narrated["character_id"] is None
    assert moved_line["position"] == 0 and dropped["deleted"] is True
    assert choices["choices"][0]["target_scene_id"] == other["id"]
    assert [(x["text"], x["speaker"]) for x in read["lines"]] == [(SHOWN, None)]
    assert read["choices"][0]["target_title"] == "There"


async def test_the_media_publish_and_delete_tools_over_http(server, tokens):
    async with connected(server, tokens["ada"]) as ada:
        ids = await demo_ids(ada)
        chapter = await ada.ok("romergo_add_chapter", project_id=ids.project_id, title="Doomed")
        scene = await ada.ok("romergo_add_scene", chapter_id=chapter["id"], title="Soon gone")
        image = await ada.ok(
            "romergo_import_asset",
            project_id=ids.project_id,
            kind="background",
            name="Wire image",
            data_base64=base64.b64encode(TINY_PNG).decode(),
        )
        tune = await ada.ok(
            "romergo_import_asset",
            project_id=ids.project_id,
            kind="music",
            name="Wire tune",
            data_base64=base64.b64encode(TINY_WAV).decode(),
        )
        background = await ada.ok("romergo_set_scene_background", scene_id=scene["id"], asset_id=image["id"])
        music = await ada.ok("romergo_set_scene_music", scene_id=scene["id"], asset_id=tune["id"])
        chapter_music = await ada.ok(
            "romergo_set_chapter_music", chapter_id=chapter["id"], asset_id=tune["id"]
        )
        published = await ada.ok("romergo_publish_project", project_id=ids.project_id)
        unpublished = await ada.ok("romergo_unpublish_project", project_id=ids.project_id)
        no_asset = await ada.ok("romergo_delete_asset", asset_id=image["id"])
        no_scene = await ada.ok("romergo_delete_scene", scene_id=scene["id"])
        no_chapter = await ada.ok("romergo_delete_chapter", chapter_id=chapter["id"])
        outline = await ada.ok("romergo_get_project_outline", project_id=ids.project_id)
    assert (image["mime"], tune["mime"]) == ("image/png", "audio/wav")
    assert background["background_asset_id"] == image["id"] and music["music_asset_id"] == tune["id"]
    assert chapter_music["music_asset_id"] == tune["id"]
    assert published["url"].startswith(f"{server.base_url}/published/")
    assert unpublished["published"] is False
    assert [no_asset["id"], no_scene["id"], no_chapter["id"]] == [image["id"], scene["id"], chapter["id"]]
    assert chapter["id"] not in [c["id"] for c in outline["chapters"]]


async def test_a_200_kb_scene_pages_over_http(server, tokens):
    async with connected(server, tokens["ada"]) as ada:
        ids = await demo_ids(ada)
        scene = await ada.ok("romergo_add_scene", chapter_id=ids.chapter_id, title="Long")
        texts = [f"{n:03d} " + "ქ" * 1990 for n in range(100)]  # Georgian: 3 bytes a letter
        for text in texts:
            await ada.ok("romergo_add_dialogue_line", scene_id=scene["id"], text=text)
        pages, page = [], None
        for _ in range(50):  # bounded: a paging bug must fail, not spin
            result = await ada.call("romergo_get_scene", scene_id=scene["id"], page=page, page_size=60_000)
            pages.append(result)
            page = untrusted(result)["next_page"]
            if page is None:
                break
        await ada.ok("romergo_delete_scene", scene_id=scene["id"])
    assert len(pages) >= 4 and untrusted(pages[0])["truncated"] is True
    assert all(len(text_of(result).encode()) <= 60_000 for result in pages)
    assert [line["text"] for r in pages for line in untrusted(r)["data"]["lines"]] == texts


def trespasses(mine: Ids, theirs: Ids) -> list[tuple[str, dict[str, Any]]]:
    """Every tool, called with the other user's ids (alone, or next to the caller's own ids)."""
    return [
        ("romergo_get_project_outline", {"project_id": theirs.project_id}),
        ("romergo_get_chapter", {"chapter_id": theirs.chapter_id}),
        ("romergo_get_scene", {"scene_id": theirs.scene_id}),
        ("romergo_preview_scene", {"scene_id": theirs.scene_id}),
        ("romergo_search_assets", {"project_id": theirs.project_id}),
        ("romergo_check_story", {"project_id": theirs.project_id}),
        ("romergo_search_story", {"project_id": theirs.project_id, "query": "e"}),
        ("romergo_list_variables", {"project_id": theirs.project_id}),
        ("romergo_simulate_playthrough", {"project_id": theirs.project_id}),
        ("romergo_add_chapter", {"project_id": theirs.project_id, "title": "Mine now"}),
        ("romergo_update_chapter", {"chapter_id": theirs.chapter_id, "title": "Mine now"}),
        ("romergo_add_scene", {"chapter_id": theirs.chapter_id, "title": "Mine now"}),
        ("romergo_update_scene", {"scene_id": theirs.scene_id, "title": "Mine now"}),
        ("romergo_move_scene", {"scene_id": theirs.scene_id, "chapter_id": mine.chapter_id, "position": 0}),
        ("romergo_move_scene", {"scene_id": mine.scene_id, "chapter_id": theirs.chapter_id, "position": 0}),
        ("romergo_add_dialogue_line", {"scene_id": theirs.scene_id, "text": "Mine now"}),
        (
            "romergo_add_dialogue_line",
            {"scene_id": mine.scene_id, "text": "x", "character_id": theirs.character_id},
        ),
        ("romergo_update_dialogue_line", {"line_id": theirs.line_id, "text": "Mine now"}),
        ("romergo_update_dialogue_line", {"line_id": mine.line_id, "character_id": theirs.character_id}),
        ("romergo_move_dialogue_line", {"line_id": theirs.line_id, "position": 3}),
        ("romergo_delete_dialogue_line", {"line_id": theirs.line_id}),
        ("romergo_set_choices", {"scene_id": theirs.scene_id, "choices": []}),
        (
            "romergo_set_choices",
            {"scene_id": mine.scene_id, "choices": [{"label": "Steal", "target_scene_id": theirs.scene_id}]},
        ),
        ("romergo_add_character", {"project_id": theirs.project_id, "name": "Spy"}),
        ("romergo_update_character", {"character_id": theirs.character_id, "name": "Spy"}),
        ("romergo_duplicate_scene", {"scene_id": theirs.scene_id}),
        ("romergo_duplicate_chapter", {"chapter_id": theirs.chapter_id}),
        ("romergo_delete_character", {"character_id": theirs.character_id}),
        ("romergo_add_variable", {"project_id": theirs.project_id, "name": "spy", "type": "flag"}),
        ("romergo_update_variable", {"variable_id": theirs.variable_id, "name": "spied"}),
        ("romergo_delete_variable", {"variable_id": theirs.variable_id}),
        ("romergo_set_scene_background", {"scene_id": theirs.scene_id, "asset_id": None}),
        ("romergo_set_scene_background", {"scene_id": mine.scene_id, "asset_id": theirs.background_id}),
        ("romergo_set_scene_music", {"scene_id": mine.scene_id, "asset_id": theirs.music_id}),
        ("romergo_set_chapter_music", {"chapter_id": theirs.chapter_id, "asset_id": None}),
        ("romergo_set_chapter_music", {"chapter_id": mine.chapter_id, "asset_id": theirs.music_id}),
        (
            "romergo_import_asset",
            {"project_id": theirs.project_id, "kind": "sound", "name": "x", "data_base64": MP3_BASE64},
        ),
        ("romergo_publish_project", {"project_id": theirs.project_id}),
        ("romergo_unpublish_project", {"project_id": theirs.project_id}),
        ("romergo_delete_scene", {"scene_id": theirs.scene_id}),
        ("romergo_delete_chapter", {"chapter_id": theirs.chapter_id}),
        ("romergo_delete_asset", {"asset_id": theirs.background_id}),
    ]


@pytest.mark.parametrize(("attacker", "victim"), [("bob", "ada"), ("ada", "bob")])
async def test_no_tool_reads_or_changes_another_users_project(server, tokens, attacker, victim):
    async with connected(server, tokens[attacker]) as them, connected(server, tokens[victim]) as owner:
        theirs, mine = await demo_ids(owner), await demo_ids(them)
        before = (await snapshot(owner, theirs.project_id), await snapshot(them, mine.project_id))
        calls = trespasses(mine, theirs)
        assert {tool for tool, _ in calls} >= set(CATALOGUE)
        for tool, arguments in calls:
            refused = await them.error(tool, **arguments)
            assert refused.startswith("[not_found] "), (tool, refused)
        listed = await them.ok("romergo_list_projects")
        after = (await snapshot(owner, theirs.project_id), await snapshot(them, mine.project_id))
    assert theirs.project_id not in [p["id"] for p in listed["projects"]]
    assert after == before


CATALOGUE = {
    "romergo_get_project_outline",
    "romergo_get_chapter",
    "romergo_get_scene",
    "romergo_search_assets",
    "romergo_preview_scene",
    "romergo_check_story",
    "romergo_search_story",
    "romergo_list_variables",
    "romergo_simulate_playthrough",
    "romergo_add_chapter",
    "romergo_update_chapter",
    "romergo_add_scene",
    "romergo_update_scene",
    "romergo_move_scene",
    "romergo_add_dialogue_line",
    "romergo_update_dialogue_line",
    "romergo_move_dialogue_line",
    "romergo_delete_dialogue_line",
    "romergo_set_choices",
    "romergo_add_character",
    "romergo_update_character",
    "romergo_duplicate_scene",
    "romergo_duplicate_chapter",
    "romergo_delete_character",
    "romergo_add_variable",
    "romergo_update_variable",
    "romergo_delete_variable",
    "romergo_set_scene_background",
    "romergo_set_scene_music",
    "romergo_set_chapter_music",
    "romergo_import_asset",
    "romergo_publish_project",
    "romergo_unpublish_project",
    "romergo_delete_scene",
    "romergo_delete_chapter",
    "romergo_delete_asset",
}
