"""Projects: create, rename, delete, publish — each change is one revision; bad input changes nothing."""

from __future__ import annotations

import pytest

from romergo.common.actors import user_actor
from romergo.common.errors import RomergoError
from tests.support.statements import counting
from tests.support.story import database_state, revisions, small_story

DATABASES = ("sqlite",)
"""The database side is the story ledger's contract, run on both (tests/storage/ledgers/test_story_*.py)."""


async def test_create_project_writes_one_created_revision(services, actor):
    project = await services.projects.create_project(actor, "  The Long Night  ")

    assert project.title == "The Long Night"
    [revision] = await revisions(services, project.id)
    assert (revision.entity_type, revision.action, revision.before) == ("project", "created", None)
    assert revision.after == {
        "id": project.id,
        "title": "The Long Night",
        "published": False,
        "share_id": None,
    }
    assert (revision.actor_type, revision.actor_id) == ("user", actor.user_id)


async def test_rename_records_before_and_after(services, actor):
    project = await services.projects.create_project(actor, "Draft")
    await services.projects.rename_project(actor, project.id, "Final")

    revision = (await revisions(services, project.id))[-1]
    assert revision.action == "updated"
    assert revision.before["title"] == "Draft"
    assert revision.after["title"] == "Final"


@pytest.mark.parametrize(
    ("title", "message"),
    [
        ("", "must not be empty"),
        ("   ", "must not be empty"),
        ("x" * 201, "limit is 200"),
        (42, "must be text"),
    ],
)
async def test_bad_titles_are_refused_and_change_nothing(services, actor, title, message):
    project = await services.projects.create_project(actor, "Keep me")
    before = await database_state(services)

    with pytest.raises(RomergoError) as refused:
        await services.projects.rename_project(actor, project.id, title)
    with pytest.raises(RomergoError):
        await services.projects.create_project(actor, title)

    assert refused.value.code == "invalid_argument"
    assert message in refused.value.message
    assert await database_state(services) == before


async def test_another_users_project_is_not_found(services, actor):
    story = await small_story(services, actor)
    stranger = user_actor((await services.accounts.create_user("stranger")).id)
    before = await database_state(services)

    for attempt in (
        services.projects.rename_project(stranger, story.project_id, "Mine now"),
        services.reads.outline(stranger, story.project_id),
        services.chapters.add_chapter(stranger, story.project_id, "Sneaky"),
        services.scenes.update_scene(stranger, story.first_scene_id, title="Sneaky"),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "not_found"
    assert await services.projects.list_projects(stranger) == []
    assert await database_state(services) == before


async def test_delete_hides_the_project_and_keeps_its_history(services, actor):
    story = await small_story(services, actor)
    await services.projects.delete_project(actor, story.project_id)

    assert await services.projects.list_projects(actor) == []
    with pytest.raises(RomergoError):
        await services.reads.outline(actor, story.project_id)
    assert (await revisions(services, story.project_id))[-1].action == "deleted"


async def test_publish_freezes_a_snapshot_and_unpublish_removes_it(services, actor):
    story = await small_story(services, actor)
    await services.lines.add_line(actor, story.first_scene_id, "Hello there.", story.hero_id)

    project = await services.publishing.publish_project(actor, story.project_id)
    assert project.published and project.share_id
    snapshot = await services.publishing.published_snapshot(project.share_id)
    assert snapshot is not None
    assert snapshot["chapters"][0]["scenes"][0]["lines"] == [
        {"character_id": story.hero_id, "text": "Hello there."}
    ]

    # Later edits do not leak into the published story until it is published again.
    await services.lines.add_line(actor, story.first_scene_id, "Unpublished thought.")
    snapshot = await services.publishing.published_snapshot(project.share_id)
    assert len(snapshot["chapters"][0]["scenes"][0]["lines"]) == 1

    share_id = project.share_id
    await services.publishing.unpublish_project(actor, story.project_id)
    assert await services.publishing.published_snapshot(share_id) is None
    with pytest.raises(RomergoError) as refused:
        await services.publishing.unpublish_project(actor, story.project_id)
    assert refused.value.code == "conflict"


async def test_a_published_storys_edits_and_views_leave_its_public_copy_alone(services, actor):
    """The public copy is megabytes for a long story: a scene view or an edit neither reads nor
    writes it, and publishing again replaces it in place, behind the same link."""
    story = await small_story(services, actor)
    line = await services.lines.add_line(actor, story.first_scene_id, "Hello there.", story.hero_id)
    first = await services.publishing.publish_project(actor, story.project_id)

    with counting(services) as seen:
        await services.scenes.scene_view(actor, story.first_scene_id)
        await services.lines.update_line(actor, line.id, text="Hello again.")
    assert not [sql for sql in seen.sql if "published_stories" in sql], str(seen)

    again = await services.publishing.publish_project(actor, story.project_id)
    assert again.share_id == first.share_id and again.share_id is not None
    snapshot = await services.publishing.published_snapshot(again.share_id)
    assert snapshot is not None
    assert snapshot["chapters"][0]["scenes"][0]["lines"][0]["text"] == "Hello again."
    assert len((await database_state(services))["published_stories"]) == 1


async def test_deleting_a_published_story_takes_its_public_copy_down(services, actor):
    story = await small_story(services, actor)
    project = await services.publishing.publish_project(actor, story.project_id)
    assert project.share_id is not None

    await services.projects.delete_project(actor, story.project_id)

    assert await services.publishing.published_snapshot(project.share_id) is None
    assert (await database_state(services))["published_stories"] == []
