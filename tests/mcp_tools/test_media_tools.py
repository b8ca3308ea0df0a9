"""The media, publish and asset tools in memory: importing files (strict base64, 3 MB, type from
the bytes), setting backgrounds and music, deleting assets, publishing and unpublishing."""

from __future__ import annotations

import base64

import pytest

from tests.support import media
from tests.support.story import TINY_PNG, TINY_WAV
from tests.support.tools import agent_of, furnished_story, story_state

MB = 1024 * 1024


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.fixture
async def story(services, actor):
    return await furnished_story(services, actor)


async def test_an_imported_file_gets_its_type_from_its_bytes(services, author, actor, story):
    async with agent_of(services, "writer") as agent:
        image = await agent.ok(
            "romergo_import_asset",
            project_id=story.project_id,
            kind="background",
            name="Cliffs",
            data_base64=b64(TINY_PNG),
            tags=["Sea", "cliff"],
        )
        sound = await agent.ok(
            "romergo_import_asset",
            project_id=story.project_id,
            kind="sound",
            name="Gull",
            data_base64=b64(TINY_WAV),
        )
        found = await agent.ok("romergo_search_assets", project_id=story.project_id, query="cliff")
    assert image == {
        "entity_type": "asset",
        "id": image["id"],
        "project_id": story.project_id,
        "kind": "background",
        "name": "Cliffs",
        "tags": ["sea", "cliff"],
        "mime": "image/png",
        "size": len(TINY_PNG),
    }
    assert (sound["mime"], sound["tags"]) == ("audio/wav", [])
    assert [a["id"] for a in found["assets"]] == [image["id"]] and found["assets"][0]["used_by"] == []
    _, stored = await services.assets.asset_content(actor, image["id"])
    assert stored == TINY_PNG


@pytest.mark.parametrize(
    ("kind", "data", "expected"),
    [
        ("background", "not base64!", "[invalid_argument] data_base64 is not valid base64"),
        ("background", b64(TINY_PNG)[:-2], "[invalid_argument] data_base64 is not valid base64"),
        ("background", b64(TINY_PNG)[:40] + "\n" + b64(TINY_PNG)[40:], "[invalid_argument] data_base64"),
        ("background", base64.urlsafe_b64encode(b"\xfb\xff" * 30).decode(), "[invalid_argument] data_base64"),
        ("background", "", "[invalid_argument] The file is empty."),
        ("background", b64(TINY_WAV), "[invalid_argument] A background must be an image"),
        ("music", b64(TINY_PNG), "[invalid_argument] A music must be audio"),
        ("sound", b64(b"just some text, not a sound"), "[invalid_argument] A sound must be audio"),
        ("music", b64(b"ID3" + bytes(3 * MB)), "[too_large] The file has 3,145,731 bytes; the limit"),
        ("video", b64(TINY_PNG), "[invalid_argument] Bad arguments for romergo_import_asset: kind: "),
    ],
)
async def test_bad_files_are_refused_and_nothing_is_stored(services, author, story, kind, data, expected):
    async with agent_of(services, "writer") as agent:
        before = await story_state(services)
        refused = await agent.error(
            "romergo_import_asset", project_id=story.project_id, kind=kind, name="Bad", data_base64=data
        )
        assert refused.startswith(expected), refused
        assert await story_state(services) == before


async def test_exactly_3_mb_is_accepted(services, author, story):
    async with agent_of(services, "writer") as agent:
        asset = await agent.ok(
            "romergo_import_asset",
            project_id=story.project_id,
            kind="music",
            name="Long",
            data_base64=b64(media.wav(3 * MB)),
        )
    assert asset["size"] == 3 * MB


async def test_backgrounds_and_music_are_set_cleared_and_inherited(services, author, actor, story):
    other_music = await services.assets.import_asset(actor, story.project_id, "music", "Storm", TINY_WAV)
    scene_id = story.second_scene_id
    async with agent_of(services, "writer") as agent:
        with_background = await agent.ok(
            "romergo_set_scene_background", scene_id=scene_id, asset_id=story.backdrop_id
        )
        with_music = await agent.ok("romergo_set_scene_music", scene_id=scene_id, asset_id=other_music.id)
        own = await agent.ok("romergo_get_scene", scene_id=scene_id)
        back_to_chapter = await agent.ok("romergo_set_scene_music", scene_id=scene_id, asset_id=None)
        inherited = await agent.ok("romergo_get_scene", scene_id=scene_id)
        chapter = await agent.ok("romergo_set_chapter_music", chapter_id=story.chapter_id, asset_id=None)
        cleared = await agent.ok("romergo_set_scene_background", scene_id=scene_id, asset_id=None)
        silent = await agent.ok("romergo_get_scene", scene_id=scene_id)
        wrong_kind = await agent.error("romergo_set_scene_music", scene_id=scene_id, asset_id=story.bell_id)
    assert with_background["background_asset_id"] == story.backdrop_id and with_background["id"] == scene_id
    assert with_music["music_asset_id"] == other_music.id
    assert own["music"] == {"asset_id": other_music.id, "name": "Storm", "source": "scene"}
    assert back_to_chapter["music_asset_id"] is None
    assert inherited["music"] == {"asset_id": story.theme_id, "name": "Sea theme", "source": "chapter"}
    assert chapter["entity_type"] == "chapter" and chapter["music_asset_id"] is None
    assert cleared["background_asset_id"] is None
    assert silent["music"]["source"] is None and silent["background"]["source"] is None
    assert wrong_kind == '[invalid_argument] Asset "Bell" is a sound asset; this needs a music asset.'


async def test_deleting_an_asset_clears_the_slots_that_used_it(services, author, actor, story):
    async with agent_of(services, "writer") as agent:
        deleted = await agent.ok("romergo_delete_asset", asset_id=story.theme_id)
        again = await agent.error("romergo_delete_asset", asset_id=story.theme_id)
        left = await agent.ok("romergo_search_assets", project_id=story.project_id)
        chapter = await agent.ok("romergo_get_chapter", chapter_id=story.chapter_id)
    assert deleted == {"entity_type": "asset", "id": story.theme_id, "deleted": True}
    assert again.startswith("[not_found] ")
    assert story.theme_id not in [a["id"] for a in left["assets"]]
    assert chapter["music_asset_id"] is None


async def test_publishing_returns_the_link_and_unpublishing_kills_it(services, author, actor, story):
    async with agent_of(services, "writer") as agent:
        published = await agent.ok("romergo_publish_project", project_id=story.project_id)
        again = await agent.ok("romergo_publish_project", project_id=story.project_id)
        listed = await agent.ok("romergo_list_projects")
        share_id = published["url"].rsplit("/", 1)[1]
        unpublished = await agent.ok("romergo_unpublish_project", project_id=story.project_id)
        twice = await agent.error("romergo_unpublish_project", project_id=story.project_id)
    assert published == {"url": f"{services.settings.base_url}/published/{share_id}"}
    assert again == published  # publishing again keeps the link
    assert [p["published"] for p in listed["projects"] if p["id"] == story.project_id] == [True]
    assert await services.publishing.published_snapshot(share_id) is None
    assert unpublished == {
        "entity_type": "project",
        "id": story.project_id,
        "title": "Harbour Lights",
        "published": False,
    }
    assert twice == '[conflict] Project "Harbour Lights" is not published.'
