"""Characters: who speaks. Unique names per project (ignoring case), a colour each."""

from __future__ import annotations

import pytest

from romergo.common.actors import user_actor
from romergo.common.errors import RomergoError
from romergo.story.characters import PALETTE
from tests.support.story import database_state, revisions, small_story

DATABASES = ("sqlite",)
"""The database side is the story ledger's contract, run on both (tests/storage/ledgers/test_story_*.py)."""


async def log_size(services, project_id):
    return len(await revisions(services, project_id))


async def written_since(services, project_id, seen):
    return (await revisions(services, project_id))[seen:]


async def test_add_with_a_colour_keeps_it_normalised(services, actor):
    project = await services.projects.create_project(actor, "Cast")
    seen = await log_size(services, project.id)

    mara = await services.characters.add_character(actor, project.id, "  Mara ", " #2980B9 ")

    assert (mara.name, mara.color) == ("Mara", "#2980b9")
    [revision] = await written_since(services, project.id, seen)
    assert (revision.entity_type, revision.entity_id, revision.action, revision.before) == (
        "character",
        mara.id,
        "created",
        None,
    )
    assert revision.after == {"id": mara.id, "project_id": project.id, "name": "Mara", "color": "#2980b9"}


async def test_without_a_colour_the_palette_is_used_in_turn(services, actor):
    project = await services.projects.create_project(actor, "Cast")
    seen = await log_size(services, project.id)

    cast = [
        await services.characters.add_character(actor, project.id, f"Extra {n}")
        for n in range(len(PALETTE) + 1)
    ]

    assert [c.color for c in cast] == [*PALETTE, PALETTE[0]]
    written = await written_since(services, project.id, seen)
    assert [(r.action, r.after["color"]) for r in written] == [("created", c.color) for c in cast]


async def test_a_bad_colour_is_refused_and_changes_nothing(services, actor):
    story = await small_story(services, actor)
    before = await database_state(services)

    for color in ("red", "#abc", "#gggggg", "2980b9", "#2980b9ff", "", 0x2980B9):
        with pytest.raises(RomergoError) as added:
            await services.characters.add_character(actor, story.project_id, "Painter", color)
        with pytest.raises(RomergoError) as updated:
            await services.characters.update_character(actor, story.hero_id, name="Renamed", color=color)
        assert added.value.code == updated.value.code == "invalid_argument", color
        assert "#" in added.value.message
    assert await database_state(services) == before


async def test_a_bad_name_is_refused_and_changes_nothing(services, actor):
    story = await small_story(services, actor)
    before = await database_state(services)

    for name in ("", "   ", "n" * 201, "Two\nLines", None, "Bad\x00Name"):
        with pytest.raises(RomergoError) as added:
            await services.characters.add_character(actor, story.project_id, name)
        assert added.value.code == "invalid_argument", name
        if name is not None:  # None means "keep the name" for an update
            with pytest.raises(RomergoError) as updated:
                await services.characters.update_character(actor, story.hero_id, name=name)
            assert updated.value.code == "invalid_argument", name
    assert await database_state(services) == before


async def test_a_duplicate_name_in_any_case_is_a_conflict(services, actor):
    story = await small_story(services, actor)  # has "Hero"
    villain = await services.characters.add_character(actor, story.project_id, "Villain")
    before = await database_state(services)

    for attempt in (
        services.characters.add_character(actor, story.project_id, "Hero"),
        services.characters.add_character(actor, story.project_id, "  hERO "),
        services.characters.update_character(actor, villain.id, name="HERO"),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "conflict"
        assert '"Hero"' in refused.value.message
    assert await database_state(services) == before


async def test_the_same_name_is_fine_in_another_project(services, actor):
    await small_story(services, actor)
    other = await services.projects.create_project(actor, "Other")
    seen = await log_size(services, other.id)

    hero = await services.characters.add_character(actor, other.id, "Hero")

    assert hero.project_id == other.id
    [revision] = await written_since(services, other.id, seen)
    assert (revision.entity_id, revision.action, revision.before, revision.after["name"]) == (
        hero.id,
        "created",
        None,
        "Hero",
    )


async def test_update_name_and_colour(services, actor):
    story = await small_story(services, actor)
    seen = await log_size(services, story.project_id)

    await services.characters.update_character(actor, story.hero_id, name="Heroine")
    await services.characters.update_character(actor, story.hero_id, color="#ABCDEF")
    # A character may change the case of its own name.
    updated = await services.characters.update_character(actor, story.hero_id, name="HEROINE")

    assert (updated.name, updated.color) == ("HEROINE", "#abcdef")
    written = await written_since(services, story.project_id, seen)
    assert [(r.entity_type, r.entity_id, r.action) for r in written] == [
        ("character", story.hero_id, "updated")
    ] * 3
    assert (written[0].before["name"], written[0].after["name"]) == ("Hero", "Heroine")
    assert written[0].before["color"] == written[0].after["color"] == PALETTE[0]
    assert (written[1].before["color"], written[1].after["color"]) == (PALETTE[0], "#abcdef")
    assert (written[2].before["name"], written[2].after["name"]) == ("Heroine", "HEROINE")

    outline = await services.reads.outline(actor, story.project_id)
    assert [(c.name, c.color) for c in outline.characters] == [("HEROINE", "#abcdef")]


async def test_an_update_that_changes_nothing_writes_nothing(services, actor):
    story = await small_story(services, actor)
    before = await database_state(services)

    await services.characters.update_character(actor, story.hero_id)
    await services.characters.update_character(actor, story.hero_id, name=" Hero ", color=PALETTE[0].upper())

    assert await database_state(services) == before


async def test_missing_or_foreign_characters_and_projects_are_not_found(services, actor):
    story = await small_story(services, actor)
    stranger = user_actor((await services.accounts.create_user("stranger")).id)
    before = await database_state(services)

    for attempt in (
        services.characters.add_character(actor, "prj_nope", "Ghost"),
        services.characters.add_character(stranger, story.project_id, "Ghost"),
        services.characters.update_character(stranger, story.hero_id, name="Ghost"),
        services.characters.update_character(actor, "chr_nope", name="Ghost"),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "not_found"
    assert await database_state(services) == before


async def test_a_character_without_lines_is_deleted_with_one_revision(services, actor):
    story = await small_story(services, actor)
    seen = await log_size(services, story.project_id)
    await services.characters.delete_character(actor, story.hero_id)
    data = await services.reads.project_data(actor, story.project_id)
    assert data.characters == []
    written = await written_since(services, story.project_id, seen)
    assert [(r.entity_id, r.action, r.before["name"], r.after) for r in written] == [
        (story.hero_id, "deleted", "Hero", None)
    ]


async def test_a_character_who_still_speaks_is_not_deleted_and_the_refusal_says_where(services, actor):
    story = await small_story(services, actor)
    await services.lines.add_line(actor, story.first_scene_id, "I am here.", story.hero_id)
    await services.lines.add_line(actor, story.second_scene_id, "Still here.", story.hero_id)
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await services.characters.delete_character(actor, story.hero_id)
    assert refused.value.code == "conflict"
    assert refused.value.message.startswith('"Hero" still speaks in "Opening", "Closing"')
    assert await database_state(services) == before


async def test_deleting_a_missing_or_foreign_character_is_not_found(services, actor):
    story = await small_story(services, actor)
    stranger = user_actor((await services.accounts.create_user("stranger")).id, "stranger")
    for who, character_id in ((actor, "chr_missing"), (stranger, story.hero_id)):
        with pytest.raises(RomergoError) as refused:
            await services.characters.delete_character(who, character_id)
        assert refused.value.code == "not_found"
