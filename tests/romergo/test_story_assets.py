"""Assets: imported media typed by their bytes, size-limited, searchable; deleting clears their slots."""

from __future__ import annotations

import hashlib
import io

import pytest
from PIL import Image

from romergo.common.actors import user_actor
from romergo.common.config import Limits
from romergo.common.errors import RomergoError
from romergo.story import AssetService, StoryStore
from tests.support import media
from tests.support.story import TINY_PNG, TINY_WAV, database_state, revisions, small_story

DATABASES = ("sqlite",)
"""The database side is the story ledger's contract, run on both (tests/storage/ledgers/test_story_*.py)."""

MB = 1024 * 1024


async def log_size(services, project_id):
    return len(await revisions(services, project_id))


async def written_since(services, project_id, seen):
    return (await revisions(services, project_id))[seen:]


async def test_a_png_background_is_imported_with_its_type_from_the_bytes(services, actor):
    story = await small_story(services, actor)
    seen = await log_size(services, story.project_id)

    asset = await services.assets.import_asset(
        actor, story.project_id, "background", " Night Sky ", TINY_PNG, ["Night", " sky ", "night", ""]
    )

    assert (asset.kind, asset.name, asset.mime, asset.size) == (
        "background",
        "Night Sky",
        "image/png",
        len(TINY_PNG),
    )
    assert asset.tags == ["night", "sky"]
    assert asset.sha256 == hashlib.sha256(TINY_PNG).hexdigest()
    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_type, revision.entity_id, revision.action, revision.before) == (
        "asset",
        asset.id,
        "created",
        None,
    )
    assert revision.after == {
        "id": asset.id,
        "project_id": story.project_id,
        "kind": "background",
        "name": "Night Sky",
        "tags": ["night", "sky"],
        "mime": "image/png",
        "size": len(TINY_PNG),
        "sha256": asset.sha256,
        "deleted": False,
    }
    stored, data = await services.assets.asset_content(actor, asset.id)
    assert (stored.id, data) == (asset.id, TINY_PNG)


async def test_wav_music_and_sound_are_imported(services, actor):
    story = await small_story(services, actor)
    seen = await log_size(services, story.project_id)

    music = await services.assets.import_asset(actor, story.project_id, "music", "Theme", TINY_WAV)
    sound = await services.assets.import_asset(actor, story.project_id, "sound", "Bell", bytearray(TINY_WAV))

    assert (music.kind, music.mime, music.size) == ("music", "audio/wav", len(TINY_WAV))
    assert (sound.kind, sound.mime) == ("sound", "audio/wav")
    written = await written_since(services, story.project_id, seen)
    assert [(r.entity_id, r.action) for r in written] == [(music.id, "created"), (sound.id, "created")]
    assert (await services.assets.asset_content(actor, sound.id))[1] == TINY_WAV


async def test_only_the_bytes_decide_the_type_not_the_name(services, actor):
    story = await small_story(services, actor)
    seen = await log_size(services, story.project_id)

    picture = await services.assets.import_asset(actor, story.project_id, "background", "song.wav", TINY_PNG)
    tune = await services.assets.import_asset(actor, story.project_id, "music", "cover.png", TINY_WAV)

    assert (picture.mime, tune.mime) == ("image/png", "audio/wav")
    written = await written_since(services, story.project_id, seen)
    assert [(r.entity_id, r.action, r.before, r.after["name"], r.after["mime"]) for r in written] == [
        (picture.id, "created", None, "song.wav", "image/png"),
        (tune.id, "created", None, "cover.png", "audio/wav"),
    ]


async def test_the_wrong_type_by_content_is_refused_and_changes_nothing(services, actor):
    story = await small_story(services, actor)
    before = await database_state(services)

    for kind, name, data, message in (
        ("background", "sky.png", TINY_WAV, "looks like audio/wav"),
        ("music", "theme.wav", TINY_PNG, "looks like image/png"),
        ("sound", "bell.ogg", TINY_PNG, "looks like image/png"),
        ("music", "theme.mp3", b"just some text, honestly\n", "not a recognised media file"),
        (
            "background",
            "sky.png",
            b"<svg xmlns='http://www.w3.org/2000/svg'/>",
            "not a recognised media file",
        ),
    ):
        with pytest.raises(RomergoError) as refused:
            await services.assets.import_asset(actor, story.project_id, kind, name, data)
        assert refused.value.code == "invalid_argument", (kind, name)
        assert message in refused.value.message, (kind, name)
    assert await database_state(services) == before


def bomb_png() -> bytes:
    """50 million one-bit pixels: a few kilobytes on disk, far past the decoding limit."""
    out = io.BytesIO()
    Image.new("1", (10_000, 5_000)).save(out, "PNG")
    return out.getvalue()


async def test_files_that_only_start_like_media_are_refused_and_change_nothing(services, actor):
    story = await small_story(services, actor)
    before = await database_state(services)
    whole_png, whole_wav = media.png(), media.wav()
    for kind, data in (
        ("background", TINY_PNG[:16]),  # the signature and no image (the attack)
        ("background", whole_png[: len(whole_png) // 2]),
        ("background", whole_png[:-20] + bytes(20)),
        ("background", bomb_png()),
        ("music", whole_wav[:44]),  # a header announcing samples that are not there
        ("music", b"ID3" + bytes(400)),
        ("sound", b"OggS" + bytes(400)),
    ):
        with pytest.raises(RomergoError) as refused:
            await services.assets.import_asset(actor, story.project_id, kind, "Fake", data)
        assert refused.value.code == "invalid_argument", data[:8]
        assert "does not decode" in refused.value.message, refused.value.message
    assert await database_state(services) == before


async def test_whole_files_of_every_accepted_type_are_imported(services, actor):
    story = await small_story(services, actor)
    for kind, data, mime in (
        ("background", media.png(), "image/png"),
        ("music", media.wav(), "audio/wav"),
        ("sound", media.mp3(), "audio/mpeg"),
    ):
        asset = await services.assets.import_asset(actor, story.project_id, kind, "Whole", data)
        assert asset.mime == mime


async def test_max_bytes_narrows_the_limit(services, actor):
    story = await small_story(services, actor)
    before = await database_state(services)

    with pytest.raises(RomergoError) as refused:
        await services.assets.import_asset(
            actor, story.project_id, "background", "Sky", TINY_PNG, max_bytes=len(TINY_PNG) - 1
        )

    assert refused.value.code == "too_large"
    assert f"{len(TINY_PNG):,}" in refused.value.message
    assert await database_state(services) == before
    seen = await log_size(services, story.project_id)
    exact = await services.assets.import_asset(
        actor, story.project_id, "background", "Sky", TINY_PNG, max_bytes=len(TINY_PNG)
    )
    assert exact.size == len(TINY_PNG)
    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_id, revision.action, revision.before, revision.after["size"]) == (
        exact.id,
        "created",
        None,
        len(TINY_PNG),
    )


async def test_the_configured_limits_apply_per_kind_and_max_bytes_cannot_widen_them(services, actor):
    assets = AssetService(
        StoryStore(services.db, services.bus, services.story_ledger), Limits(max_image_mb=1, max_audio_mb=2)
    )
    story = await small_story(services, actor)
    before = await database_state(services)

    for kind, data, max_bytes in (
        ("background", media.png(MB + 1), None),
        ("background", media.png(MB + 1), 5 * MB),
        ("music", media.wav(2 * MB + 1), None),
        ("sound", media.wav(2 * MB + 1), None),
    ):
        with pytest.raises(RomergoError) as refused:
            await assets.import_asset(actor, story.project_id, kind, "Big", data, max_bytes=max_bytes)
        assert refused.value.code == "too_large", kind
    assert await database_state(services) == before

    seen = await log_size(services, story.project_id)
    at_limit = await assets.import_asset(actor, story.project_id, "background", "Big", media.png(MB))
    longer_audio = await assets.import_asset(actor, story.project_id, "music", "Long", media.wav(MB + 1))
    assert (at_limit.size, longer_audio.size) == (MB, MB + 1)
    written = await written_since(services, story.project_id, seen)
    assert [(r.entity_id, r.action, r.before, r.after["size"]) for r in written] == [
        (at_limit.id, "created", None, MB),
        (longer_audio.id, "created", None, MB + 1),
    ]


BAD_IMPORTS = [
    ("background", "Sky", b"", [], "empty"),
    ("music", "Theme", b"", [], "empty"),
    ("image", "Sky", TINY_PNG, [], "kind must be one of background, music, sound"),
    ("Background", "Sky", TINY_PNG, [], "kind must be one of"),
    (None, "Sky", TINY_PNG, [], "kind must be one of"),
    ("background", "", TINY_PNG, [], "must not be empty"),
    ("background", "Sky", "not bytes", [], "as bytes"),
    ("background", "Sky", TINY_PNG, [f"tag{n}" for n in range(21)], "at most 20 tags"),
    ("background", "Sky", TINY_PNG, ["t" * 41], "40 characters"),
    ("background", "Sky", TINY_PNG, ["fine", 7], "must be text"),
    ("background", "Sky", TINY_PNG, ["bad\x00tag"], "control characters"),
    # A bare word is not a list of tags (it must not become one tag per letter).
    ("background", "Sky", TINY_PNG, "forest", "list of words"),
]


async def test_bad_imports_are_refused_and_change_nothing(services, actor):
    story = await small_story(services, actor)
    sky = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG, ["keep"])
    before = await database_state(services)

    for kind, name, data, tags, message in BAD_IMPORTS:
        case = (kind, name, tags)
        with pytest.raises(RomergoError) as refused:
            await services.assets.import_asset(actor, story.project_id, kind, name, data, tags)
        assert refused.value.code == "invalid_argument", case
        assert message in refused.value.message, case
    for new_name, new_tags in (("", None), (None, "forest"), (None, ["t" * 41])):
        with pytest.raises(RomergoError) as refused:
            await services.assets.update_asset(actor, sky.id, name=new_name, tags=new_tags)
        assert refused.value.code == "invalid_argument", (new_name, new_tags)
    assert await database_state(services) == before


async def test_twenty_tags_of_forty_characters_are_fine(services, actor):
    story = await small_story(services, actor)
    tags = [f"{n:02d}" + "t" * 38 for n in range(20)]
    seen = await log_size(services, story.project_id)

    asset = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG, tags)

    assert asset.tags == tags
    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_id, revision.action, revision.before, revision.after["tags"]) == (
        asset.id,
        "created",
        None,
        tags,
    )


async def test_importing_into_a_missing_or_foreign_project_is_not_found(services, actor):
    story = await small_story(services, actor)
    stranger = user_actor((await services.accounts.create_user("stranger")).id)
    before = await database_state(services)

    for who, project_id in ((actor, "prj_nope"), (stranger, story.project_id)):
        with pytest.raises(RomergoError) as refused:
            await services.assets.import_asset(who, project_id, "background", "Sky", TINY_PNG)
        assert refused.value.code == "not_found"
    assert await database_state(services) == before


async def test_update_renames_and_retags(services, actor):
    story = await small_story(services, actor)
    asset = await services.assets.import_asset(actor, story.project_id, "music", "Theme", TINY_WAV, ["calm"])
    seen = await log_size(services, story.project_id)

    updated = await services.assets.update_asset(actor, asset.id, name="Main Theme", tags=["Calm", "Main"])

    assert (updated.name, updated.tags) == ("Main Theme", ["calm", "main"])
    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_id, revision.action) == (asset.id, "updated")
    assert (revision.before["name"], revision.before["tags"]) == ("Theme", ["calm"])
    assert (revision.after["name"], revision.after["tags"]) == ("Main Theme", ["calm", "main"])

    unchanged = await database_state(services)
    await services.assets.update_asset(actor, asset.id, name="Main Theme", tags=["main", "CALM"][::-1])
    assert await database_state(services) == unchanged


async def test_find_assets_by_words_and_kind(services, actor):
    story = await small_story(services, actor)
    harbor = await services.assets.import_asset(
        actor, story.project_id, "background", "Harbor at Dawn", TINY_PNG, ["sea", "dawn"]
    )
    storm = await services.assets.import_asset(
        actor, story.project_id, "music", "Storm Theme", TINY_WAV, ["tension"]
    )
    cliff = await services.assets.import_asset(
        actor, story.project_id, "background", "Stormy Cliff", TINY_PNG, ["night"]
    )
    bell = await services.assets.import_asset(actor, story.project_id, "sound", "Bell", TINY_WAV, ["harbor"])
    other = await small_story(services, actor, "Other")
    await services.assets.import_asset(actor, other.project_id, "music", "Storm Elsewhere", TINY_WAV)

    async def found(query="", kind=None):
        return [a.id for a in await services.assets.find_assets(actor, story.project_id, query, kind)]

    assert await found() == [bell.id, harbor.id, storm.id, cliff.id]
    assert await found("STORM") == [storm.id, cliff.id]
    assert await found("storm", "music") == [storm.id]
    assert await found(kind="background") == [harbor.id, cliff.id]
    assert await found("harbor") == [bell.id, harbor.id]  # by tag and by name
    assert await found("dawn sea") == [harbor.id]
    assert await found("dawn night") == []
    assert await found("music") == [storm.id]  # the kind is a word too
    assert await found("  ") == [bell.id, harbor.id, storm.id, cliff.id]

    before = await database_state(services)
    for query, kind, code in (("", "picture", "invalid_argument"), (None, None, "invalid_argument")):
        with pytest.raises(RomergoError) as refused:
            await services.assets.find_assets(actor, story.project_id, query, kind)
        assert refused.value.code == code
    with pytest.raises(RomergoError) as missing:
        await services.assets.find_assets(actor, "prj_nope")
    assert missing.value.code == "not_found"
    assert await database_state(services) == before


async def test_assets_with_usage_lists_every_slot_that_uses_each_asset(services, actor):
    story = await small_story(services, actor)
    sky = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    theme = await services.assets.import_asset(actor, story.project_id, "music", "Theme", TINY_WAV)
    spare = await services.assets.import_asset(actor, story.project_id, "music", "Spare", TINY_WAV)
    await services.chapters.set_chapter_music(actor, story.chapter_id, theme.id)
    await services.chapters.set_chapter_background(actor, story.chapter_id, sky.id)
    await services.scenes.set_scene_background(actor, story.second_scene_id, sky.id)
    await services.scenes.set_scene_music(actor, story.first_scene_id, theme.id)

    views = await services.assets.assets_with_usage(actor, story.project_id)

    usage = {
        view.asset.name: sorted((u.entity_type, u.entity_id, u.title, u.slot) for u in view.used_by)
        for view in views
    }
    assert [view.asset.id for view in views] == [sky.id, spare.id, theme.id]
    assert usage == {
        "Sky": [
            ("chapter", story.chapter_id, "One", "background"),
            ("scene", story.second_scene_id, "Closing", "background"),
        ],
        "Spare": [],
        "Theme": [
            ("chapter", story.chapter_id, "One", "music"),
            ("scene", story.first_scene_id, "Opening", "music"),
        ],
    }
    assert [
        view.asset.id for view in await services.assets.assets_with_usage(actor, story.project_id, "music")
    ] == [
        spare.id,
        theme.id,
    ]


async def test_delete_clears_the_slots_that_used_it_and_hides_the_asset_but_keeps_its_bytes(services, actor):
    story = await small_story(services, actor)
    theme = await services.assets.import_asset(actor, story.project_id, "music", "Theme", TINY_WAV)
    sky = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    await services.chapters.set_chapter_music(actor, story.chapter_id, theme.id)
    await services.scenes.set_scene_music(actor, story.first_scene_id, theme.id)
    await services.scenes.set_scene_background(actor, story.first_scene_id, sky.id)
    await services.scenes.set_scene_background(actor, story.second_scene_id, sky.id)
    seen = await log_size(services, story.project_id)

    await services.assets.delete_asset(actor, theme.id)

    written = await written_since(services, story.project_id, seen)
    assert [(r.entity_type, r.entity_id, r.action) for r in written] == [
        ("scene", story.first_scene_id, "updated"),
        ("chapter", story.chapter_id, "updated"),
        ("asset", theme.id, "deleted"),
    ]
    scene_revision, chapter_revision, asset_revision = written
    assert (scene_revision.before["music_asset_id"], scene_revision.after["music_asset_id"]) == (
        theme.id,
        None,
    )
    assert (
        scene_revision.before["background_asset_id"] == scene_revision.after["background_asset_id"] == sky.id
    )
    assert (chapter_revision.before["music_asset_id"], chapter_revision.after["music_asset_id"]) == (
        theme.id,
        None,
    )
    assert (asset_revision.before["name"], asset_revision.before["deleted"], asset_revision.after) == (
        "Theme",
        False,
        None,
    )

    assert [a.id for a in await services.assets.find_assets(actor, story.project_id)] == [sky.id]
    assert [v.asset.id for v in await services.assets.assets_with_usage(actor, story.project_id)] == [sky.id]
    view = await services.scenes.scene_view(actor, story.first_scene_id)
    assert (view.music.asset, view.background.asset.id) == (None, sky.id)
    # History may still point at it, so its bytes stay readable for the owner.
    stored, data = await services.assets.asset_content(actor, theme.id)
    assert (stored.id, stored.deleted_at is not None, data) == (theme.id, True, TINY_WAV)

    before = await database_state(services)
    for attempt in (
        services.assets.delete_asset(actor, theme.id),
        services.scenes.set_scene_music(actor, story.second_scene_id, theme.id),
        services.chapters.set_chapter_music(actor, story.chapter_id, theme.id),
        services.assets.update_asset(actor, theme.id, name="Back"),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "not_found"
    assert await database_state(services) == before


async def test_an_unused_asset_is_deleted_with_one_revision(services, actor):
    story = await small_story(services, actor)
    sky = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    seen = await log_size(services, story.project_id)

    await services.assets.delete_asset(actor, sky.id)

    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_id, revision.action, revision.after) == (sky.id, "deleted", None)


async def test_another_user_can_neither_read_nor_delete_an_asset(services, actor):
    story = await small_story(services, actor)
    sky = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    stranger = user_actor((await services.accounts.create_user("stranger")).id)
    before = await database_state(services)

    for attempt in (
        services.assets.asset_content(stranger, sky.id),
        services.assets.delete_asset(stranger, sky.id),
        services.assets.find_assets(stranger, story.project_id),
        services.assets.asset_content(actor, "ast_nope"),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "not_found"
    assert await database_state(services) == before
