"""The story ledger's transaction on both databases, for projects, their public copies, assets and
the ordered reads and additions a copy is made of: records in, records out, and what each read
leaves out (deleted, unpublished, someone else's, another project's)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from storage.story.ledger import DatabaseStoryLedger
from storage.story.records import (
    AssetRecord,
    ChapterRecord,
    ChoiceRecord,
    LineRecord,
    ProjectRecord,
    SceneRecord,
)
from tests.support import media
from tests.support.story import small_story

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def project(project_id: str, owner_id: str, title: str, updated: datetime = WHEN) -> ProjectRecord:
    return ProjectRecord(project_id, owner_id, title, WHEN, updated, False, None, None, None)


def asset(asset_id: str, project_id: str, kind: str, name: str) -> AssetRecord:
    return AssetRecord(
        asset_id, project_id, kind, name, ["sky"], "image/png", 3, "0" * 64, f"blb_{asset_id}", WHEN, None
    )


async def test_an_owners_live_projects_are_listed_latest_changed_first(services, actor):
    stranger = await services.accounts.create_user("stranger")
    ledger = DatabaseStoryLedger(services.db)
    older = project("prj_older", actor.user_id, "Older")
    newer = project("prj_newer", actor.user_id, "Newer", WHEN + timedelta(hours=1))
    gone = project("prj_gone", actor.user_id, "Gone", WHEN + timedelta(hours=2))
    theirs = project("prj_theirs", stranger.id, "Theirs", WHEN + timedelta(hours=3))

    async with services.db.write() as session:
        writes = ledger.within(session)
        for record in (older, newer, gone, theirs):
            await writes.add_project(record)
        assert await writes.project(older.id) == older
    async with services.db.write() as session:
        await ledger.within(session).save_project(replace(gone, deleted_at=WHEN))
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert [(p.project.id, p.role) for p in await reads.projects_of(actor.user_id)] == [
            (newer.id, "owner"),
            (older.id, "owner"),
        ]
        assert [p.project.id for p in await reads.projects_of(stranger.id)] == [theirs.id]
        assert await reads.projects_of("usr_missing") == []
        assert (await reads.project(gone.id)) == replace(gone, deleted_at=WHEN)
        assert await reads.project("prj_missing") is None
        assert await reads.project("") is None


async def test_a_public_copy_is_found_by_its_link_only_while_its_project_is_published_and_live(
    services, actor
):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    async with services.db.write() as session:
        writes = ledger.within(session)
        found = await writes.project(story.project_id)
        assert found is not None
        shown = replace(found, published=True, share_id="link", published_at=WHEN)
        await writes.save_project(shown)
        await writes.put_published_story(story.project_id, {"title": "First"})
    async with services.db.write() as session:
        writes = ledger.within(session)
        assert await writes.published_story("link") == {"title": "First"}
        await writes.put_published_story(story.project_id, {"title": "Second"})
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert await reads.published_story("link") == {"title": "Second"}
        assert await reads.published_story("other") is None

    async with services.db.write() as session:
        await ledger.within(session).save_project(replace(shown, published=False))
    async with services.db.read() as session:
        assert await ledger.within(session).published_story("link") is None, "not published"

    async with services.db.write() as session:
        await ledger.within(session).save_project(replace(shown, deleted_at=WHEN))
    async with services.db.read() as session:
        assert await ledger.within(session).published_story("link") is None, "deleted"

    async with services.db.write() as session:
        writes = ledger.within(session)
        await writes.save_project(shown)
        await writes.put_published_story(story.project_id, None)
    async with services.db.read() as session:
        assert await ledger.within(session).published_story("link") is None, "taken down"


async def test_assets_keep_their_bytes_apart_and_live_ones_are_listed_by_name(services, actor):
    story = await small_story(services, actor)
    other = await small_story(services, actor, "Other")
    ledger = DatabaseStoryLedger(services.db)
    sky = asset("ast_sky", story.project_id, "background", "Sky")
    rain = asset("ast_rain", story.project_id, "music", "Rain")
    dawn = asset("ast_dawn", story.project_id, "background", "Dawn")
    elsewhere = asset("ast_elsewhere", other.project_id, "background", "Aardvark")
    png = media.png()

    async with services.db.write() as session:
        writes = ledger.within(session)
        for record in (sky, rain, dawn, elsewhere):
            await writes.add_asset(record, png)
    async with services.db.write() as session:
        writes = ledger.within(session)
        assert await writes.asset(sky.id) == sky
        await writes.save_asset(replace(dawn, deleted_at=WHEN, name="Dusk"))
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert [a.id for a in await reads.live_assets(story.project_id)] == [rain.id, sky.id]
        assert [a.id for a in await reads.live_assets(story.project_id, "background")] == [sky.id]
        assert await reads.live_assets("prj_missing") == []
        assert await reads.asset(dawn.id) == replace(dawn, deleted_at=WHEN, name="Dusk"), "kept for history"
        assert await reads.asset_bytes(sky.blob_id) == png
        assert await reads.asset_bytes(dawn.blob_id) == png
        assert await reads.asset_bytes("blb_missing") is None
        assert await reads.asset("ast_missing") is None


async def test_what_names_an_asset_in_its_own_slots_is_found_in_its_project_only(services, actor):
    story = await small_story(services, actor)
    sky = await services.assets.import_asset(actor, story.project_id, "background", "Sky", media.png())
    await services.scenes.set_scene_background(actor, story.first_scene_id, sky.id)
    ledger = DatabaseStoryLedger(services.db)
    async with services.db.write() as session:
        writes = ledger.within(session)
        chapter = await writes.chapter(story.chapter_id)
        assert chapter is not None
        assert await writes.chapters_using_asset(story.project_id, sky.id) == []
        await writes.save_chapter(replace(chapter, background_asset_id=sky.id, title="Lit"))
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert [s.id for s in await reads.scenes_using_asset(story.project_id, sky.id)] == [
            story.first_scene_id
        ]
        assert [c.title for c in await reads.chapters_using_asset(story.project_id, sky.id)] == ["Lit"]
        assert await reads.scenes_using_asset("prj_missing", sky.id) == []
        assert await reads.scenes_using_asset(story.project_id, "ast_missing") == []


async def test_added_chapters_scenes_lines_and_choices_are_read_back_in_order(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    chapter = ChapterRecord("chp_new", story.project_id, "New", 1, None, None, WHEN, WHEN)
    later = SceneRecord(
        "scn_later", story.project_id, chapter.id, "Later", 1, False, True, None, None, None, WHEN, WHEN
    )
    sooner = replace(later, id="scn_sooner", title="Sooner", position=0, is_ending=False)
    second = LineRecord("lin_2", story.project_id, sooner.id, 1, None, "Two.", None, WHEN, WHEN)
    first = replace(second, id="lin_1", position=0, text="One.", character_id=story.hero_id)
    choice = ChoiceRecord("cho_on", story.project_id, sooner.id, 0, "On", later.id, "gold > 1", None)

    async with services.db.write() as session:
        # A copy reads what it copies between its additions, and each read writes what was
        # added before it: the rows land in the order of their references.
        writes = ledger.within(session)
        await writes.add_chapter(chapter)
        assert await writes.scenes_of(chapter.id) == []
        for scene in (later, sooner):
            await writes.add_scene(scene)
        assert await writes.choices_of(sooner.id) == []
        await writes.add_choice(choice)
        assert await writes.lines_of(sooner.id) == []
        for line in (second, first):
            await writes.add_line(line)
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert [c.id for c in await reads.chapters_of(story.project_id)] == [
            story.chapter_id,
            chapter.id,
        ]
        assert await reads.scenes_of(chapter.id) == [sooner, later]
        assert await reads.lines_of(sooner.id) == [first, second]
        assert await reads.choices_of(sooner.id) == [choice]
        assert await reads.chapter(chapter.id) == chapter
        assert await reads.scenes_of("chp_missing") == []
        assert await reads.lines_of("scn_missing") == []
        assert await reads.chapter("chp_missing") is None


async def test_a_public_read_finds_the_copy_behind_a_link_and_any_assets_file(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    sky = asset("ast_sky", story.project_id, "background", "Sky")
    png = media.png()
    async with services.db.write() as session:
        writes = ledger.within(session)
        found = await writes.project(story.project_id)
        assert found is not None
        await writes.save_project(replace(found, published=True, share_id="link", published_at=WHEN))
        await writes.put_published_story(story.project_id, {"title": "First"})
        await writes.add_asset(sky, png)

    assert await ledger.published_story("link") == {"title": "First"}
    assert await ledger.published_story("other") is None
    assert await ledger.asset_file(sky.id) == (sky, png)
    assert await ledger.asset_file("ast_missing") is None
    async with services.db.write() as session:
        await ledger.within(session).save_asset(replace(sky, deleted_at=WHEN))
    assert await ledger.asset_file(sky.id) == (replace(sky, deleted_at=WHEN), png), "the caller decides"
