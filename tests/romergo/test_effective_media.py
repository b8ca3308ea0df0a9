"""A scene's effective background and music: its own, else its chapter's; deleted assets count as absent.

First the rule as a table, then the four readers that must agree on it (scene view, story check,
play-through, published snapshot) on a scene whose own background was deleted underneath it.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlmodel import col, update

from romergo.story.media_rules import EffectiveMedia, MediaSlot, effective_media
from romergo.story.playback import from_project
from storage.tables import Asset, Chapter, Scene
from tests.support.story import TINY_PNG, small_story

NOW = datetime(2026, 1, 1, tzinfo=UTC)
LIVE = {"ast_own", "ast_chapter"}


def scene_with(slot: MediaSlot, asset_id: str | None) -> Scene:
    scene = Scene(
        id="scn_1",
        project_id="prj_1",
        chapter_id="chp_1",
        title="S",
        position=0,
        created_at=NOW,
        updated_at=NOW,
    )
    setattr(scene, f"{slot}_asset_id", asset_id)
    return scene


def chapter_with(slot: MediaSlot, asset_id: str | None) -> Chapter:
    chapter = Chapter(id="chp_1", project_id="prj_1", title="C", position=0, created_at=NOW, updated_at=NOW)
    setattr(chapter, f"{slot}_asset_id", asset_id)
    return chapter


@pytest.mark.parametrize("slot", ["background", "music"])
@pytest.mark.parametrize(
    ("own", "inherited", "expected"),
    [
        ("ast_own", "ast_chapter", EffectiveMedia("ast_own", "scene")),
        ("ast_own", None, EffectiveMedia("ast_own", "scene")),
        ("ast_deleted", "ast_chapter", EffectiveMedia("ast_chapter", "chapter")),
        (None, "ast_chapter", EffectiveMedia("ast_chapter", "chapter")),
        (None, "ast_deleted", EffectiveMedia(None, None)),
        ("ast_deleted", "ast_deleted", EffectiveMedia(None, None)),
        ("ast_deleted", None, EffectiveMedia(None, None)),
        (None, None, EffectiveMedia(None, None)),
    ],
    ids=[
        "own wins over chapter",
        "own without chapter",
        "own deleted: chapter's",
        "none: chapter's",
        "chapter's deleted: none",
        "both deleted: none",
        "own deleted, no chapter asset: none",
        "nothing anywhere",
    ],
)
def test_the_rule(slot: MediaSlot, own: str | None, inherited: str | None, expected: EffectiveMedia) -> None:
    assert effective_media(scene_with(slot, own), chapter_with(slot, inherited), slot, LIVE) == expected


def test_the_other_slot_does_not_count() -> None:
    scene = scene_with("music", "ast_own")
    assert effective_media(scene, chapter_with("music", "ast_chapter"), "background", LIVE) == EffectiveMedia(
        None, None
    )


def test_a_scene_without_a_chapter_has_only_its_own() -> None:
    assert (
        effective_media(scene_with("background", "ast_own"), None, "background", LIVE).asset_id == "ast_own"
    )
    assert effective_media(scene_with("background", None), None, "background", LIVE).asset_id is None


async def test_every_reader_falls_back_to_the_chapter_when_the_scenes_own_asset_is_deleted(services, actor):
    story = await small_story(services, actor)
    harbor = await services.assets.import_asset(actor, story.project_id, "background", "Harbor", TINY_PNG)
    cellar = await services.assets.import_asset(actor, story.project_id, "background", "Cellar", TINY_PNG)
    await services.chapters.set_chapter_background(actor, story.chapter_id, harbor.id)
    await services.assets.delete_asset(actor, cellar.id)
    # Deleting clears the slots that use an asset; undo can bring such a reference back.
    async with services.db.write() as session:
        await session.exec(
            update(Scene).where(col(Scene.id) == story.first_scene_id).values(background_asset_id=cellar.id)
        )

    view = await services.scenes.scene_view(actor, story.first_scene_id)
    assert (view.background.asset.id if view.background.asset else None, view.background.source) == (
        harbor.id,
        "chapter",
    )
    problems = await services.reads.check_story(actor, story.project_id)
    assert not [p for p in problems if p.code == "missing_background"]
    play = from_project(await services.reads.project_data(actor, story.project_id))
    assert [scene.background_asset_id for scene in play.scenes] == [harbor.id, harbor.id]
    published = await services.publishing.publish_project(actor, story.project_id)
    snapshot = await services.publishing.published_snapshot(published.share_id or "") or {}
    assert [s["background_asset_id"] for s in snapshot["chapters"][0]["scenes"]] == [harbor.id, harbor.id]
    assert snapshot["asset_ids"] == [harbor.id]


async def test_a_deleted_chapter_asset_leaves_the_scene_without_one(services, actor):
    story = await small_story(services, actor)
    harbor = await services.assets.import_asset(actor, story.project_id, "background", "Harbor", TINY_PNG)
    async with services.db.write() as session:
        await session.exec(
            update(Chapter).where(col(Chapter.id) == story.chapter_id).values(background_asset_id=harbor.id)
        )
        await session.exec(update(Asset).where(col(Asset.id) == harbor.id).values(deleted_at=NOW))

    view = await services.scenes.scene_view(actor, story.first_scene_id)
    assert (view.background.asset, view.background.source) == (None, None)
    problems = await services.reads.check_story(actor, story.project_id)
    assert {p.scene_id for p in problems if p.code == "missing_background"} == {
        story.first_scene_id,
        story.second_scene_id,
    }
    play = from_project(await services.reads.project_data(actor, story.project_id))
    assert [scene.background_asset_id for scene in play.scenes] == [None, None]
