"""The story ledger's reads of a scene, a chapter and a whole project, on both databases: what each
hands up, in what order, and that a stranger, a deleted project or a missing id finds nothing."""

from __future__ import annotations

from dataclasses import replace

from romergo.common.actors import user_actor
from romergo.story import ChoiceSpec
from storage.story.ledger import DatabaseStoryLedger
from tests.support.story import TINY_PNG, TINY_WAV, revisions, small_story


async def test_a_scene_comes_with_its_lines_choices_speakers_media_and_revisions(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    second = await services.lines.add_line(actor, story.first_scene_id, "Second", story.hero_id)
    first = await services.lines.add_line(actor, story.first_scene_id, "First", position=0)
    sky = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    gone = await services.assets.import_asset(actor, story.project_id, "music", "Gone", TINY_WAV)
    await services.scenes.set_scene_background(actor, story.first_scene_id, sky.id)
    await services.scenes.set_scene_music(actor, story.first_scene_id, gone.id)
    await services.assets.delete_asset(actor, gone.id)
    await services.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("On", story.second_scene_id), ChoiceSpec("Nowhere", None)]
    )

    found = await ledger.scene(actor.user_id, story.first_scene_id)

    assert found is not None
    assert (found.scene.id, found.chapter.id, found.project.id) == (
        story.first_scene_id,
        story.chapter_id,
        story.project_id,
    )
    assert [line.id for line in found.lines] == [first.id, second.id]
    assert [(c.choice.label, c.target_title, c.target_chapter_id) for c in found.choices] == [
        ("On", "Closing", story.chapter_id),
        ("Nowhere", None, None),
    ]
    assert [character.id for character in found.characters] == [story.hero_id]
    assert [asset.id for asset in found.media] == [sky.id]  # the deleted music is not shown
    newest = {row.entity_id: row.id for row in await revisions(services, story.project_id)}
    assert found.revisions == {key: newest[key] for key in (story.first_scene_id, first.id, second.id)}


async def test_a_scene_or_chapter_is_nothing_to_a_stranger_or_once_deleted(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    stranger = await services.accounts.create_user("stranger")
    assert await ledger.scene(stranger.id, story.first_scene_id) is None
    assert await ledger.chapter(stranger.id, story.chapter_id) is None
    for missing in ("scn_missing", ""):
        assert await ledger.scene(actor.user_id, missing) is None
        assert await ledger.chapter(actor.user_id, missing) is None
    await services.projects.delete_project(actor, story.project_id)
    assert await ledger.scene(actor.user_id, story.first_scene_id) is None
    assert await ledger.chapter(actor.user_id, story.chapter_id) is None
    assert await ledger.whole_project(actor.user_id, story.project_id) is None


async def test_a_chapter_comes_with_its_scenes_in_order_and_their_revisions(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    await services.scenes.move_scene(actor, story.second_scene_id, story.chapter_id, 0)

    found = await ledger.chapter(actor.user_id, story.chapter_id)

    assert found is not None
    assert found.chapter.id == story.chapter_id and found.project.id == story.project_id
    assert [scene.id for scene in found.scenes] == [story.second_scene_id, story.first_scene_id]
    newest = {row.entity_id: row.id for row in await revisions(services, story.project_id)}
    assert found.revisions == {
        key: newest[key] for key in (story.chapter_id, story.first_scene_id, story.second_scene_id)
    }


async def test_a_whole_project_in_full_in_its_shape_and_without_text(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    line = await services.lines.add_line(actor, story.first_scene_id, "Hello", story.hero_id)
    await services.scenes.set_choices(actor, story.first_scene_id, [ChoiceSpec("On", story.second_scene_id)])
    await services.variables.add_variable(actor, story.project_id, "gold", "number", 3)
    kept = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    gone = await services.assets.import_asset(actor, story.project_id, "music", "Gone", TINY_WAV)
    await services.assets.delete_asset(actor, gone.id)

    full = await ledger.whole_project(actor.user_id, story.project_id)
    shape = await ledger.whole_project(actor.user_id, story.project_id, shape_only=True)
    untold = await ledger.whole_project(actor.user_id, story.project_id, with_text=False)

    assert full is not None and shape is not None and untold is not None
    assert full.project.id == story.project_id
    assert [chapter.id for chapter in full.chapters] == [story.chapter_id]
    assert {scene.id for scene in full.scenes} == {story.first_scene_id, story.second_scene_id}
    assert [(row.id, row.text, row.character_id) for row in full.lines] == [(line.id, "Hello", story.hero_id)]
    assert [(row.label, row.target_scene_id) for row in full.choices] == [("On", story.second_scene_id)]
    assert [variable.name for variable in full.variables] == ["gold"]
    assert [asset.id for asset in full.assets] == [kept.id]
    assert (shape.lines, shape.choices, shape.variables) == ([], [], [])
    assert {scene.id for scene in shape.scenes} == {story.first_scene_id, story.second_scene_id}
    assert [(row.id, row.text) for row in untold.lines] == [(line.id, "")]
    stranger = await services.accounts.create_user("stranger")
    assert await ledger.whole_project(stranger.id, story.project_id) is None
    assert await ledger.whole_project(actor.user_id, "prj_missing") is None


async def test_media_heads_and_files_are_the_live_assets_bytes(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    sky = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    gone = await services.assets.import_asset(actor, story.project_id, "music", "Gone", TINY_WAV)
    await services.assets.delete_asset(actor, gone.id)

    with_media = await ledger.project_with_media(actor.user_id, story.project_id)
    with_files = await ledger.project_with_files(actor.user_id, story.project_id)

    assert with_media is not None and with_files is not None
    heads = with_media[1]
    assert list(heads) == [sky.id]
    assert (heads[sky.id].head, heads[sky.id].length) == (TINY_PNG[:16], len(TINY_PNG))
    assert list(with_files[1].values()) == [TINY_PNG]
    assert list(with_files[1]) == [with_files[0].assets[0].blob_id]
    stranger = await services.accounts.create_user("stranger")
    assert await ledger.project_with_media(stranger.id, story.project_id) is None
    assert await ledger.project_with_files(stranger.id, story.project_id) is None


async def test_the_owner_of_a_row_is_its_projects_with_the_askers_role(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    sky = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    await services.assets.delete_asset(actor, sky.id)

    for entity_type, entity_id in (
        ("scene", story.first_scene_id),
        ("project", story.project_id),
        ("asset", sky.id),
    ):
        found = await ledger.owner_of(entity_type, entity_id, actor.user_id)
        assert found is not None
        assert (found.project_id, found.owner_id, found.deleted_at) == (story.project_id, actor.user_id, None)
        assert found.role == "owner"
        stranger = await ledger.owner_of(entity_type, entity_id, "usr_stranger")
        assert stranger is not None and stranger.project_id == story.project_id and stranger.role is None
    assert await ledger.owner_of("scene", "scn_missing", actor.user_id) is None
    await services.projects.delete_project(actor, story.project_id)
    deleted = await ledger.owner_of("scene", story.first_scene_id, actor.user_id)
    assert deleted is not None and deleted.deleted_at is not None


async def test_chapter_ids_are_in_story_order_and_only_the_owners(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    second = await services.chapters.add_chapter(actor, story.project_id, "Two")
    first = await services.chapters.add_chapter(actor, story.project_id, "Zero", position=0)
    in_order = [first.id, story.chapter_id, second.id]
    assert await ledger.chapter_ids(actor.user_id, story.project_id) == in_order
    other = user_actor((await services.accounts.create_user("stranger")).id, "stranger")
    assert await ledger.chapter_ids(other.user_id, story.project_id) is None


async def test_a_project_with_revisions_is_the_revisions_of_its_types_and_the_project(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    line = await services.lines.add_line(actor, story.first_scene_id, "Hello")
    newest = {row.entity_id: row.id for row in await revisions(services, story.project_id)}

    found = await ledger.project_with_revisions(
        actor.user_id, story.project_id, ("chapter", "scene"), shape_only=True
    )

    assert found is not None
    numbers, shape = found
    assert numbers == {
        key: newest[key] for key in (story.chapter_id, story.first_scene_id, story.second_scene_id)
    }
    assert line.id not in numbers
    assert [chapter.id for chapter in shape.chapters] == [story.chapter_id]
    assert (shape.lines, shape.choices, shape.variables) == ([], [], [])
    whole = await ledger.project_with_revisions(actor.user_id, story.project_id, ("dialogue_line",))
    assert whole is not None
    assert whole[0] == {line.id: newest[line.id]}
    assert [(row.id, row.text) for row in whole[1].lines] == [(line.id, "Hello")]
    stranger = await services.accounts.create_user("stranger")
    assert await ledger.project_with_revisions(stranger.id, story.project_id, ("scene",)) is None


async def test_a_whole_project_is_the_same_records_inside_a_transaction_and_entity_by_entity(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    await services.lines.add_line(actor, story.first_scene_id, "Hello", story.hero_id)
    await services.scenes.set_choices(actor, story.first_scene_id, [ChoiceSpec("On", story.second_scene_id)])
    await services.variables.add_variable(actor, story.project_id, "gold", "number", 3)
    await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)

    own = await ledger.whole_project(actor.user_id, story.project_id)
    async with services.db.read() as session:
        reads = ledger.within(session)
        inside = await reads.whole_project(story.project_id, shape_only=False, with_text=True)
        shape = await reads.whole_project(story.project_id, shape_only=True, with_text=True)
        one_by_one = (
            await reads.project(story.project_id),
            await reads.chapters_of(story.project_id),
            await reads.scenes_of(story.chapter_id),
            await reads.characters(story.project_id),
            await reads.live_assets(story.project_id),
            await reads.variables(story.project_id),
        )

    assert own is not None and own.role == "owner"
    assert inside == replace(own, role=None)  # inside a unit of work, the core already knows the role
    in_order = sorted(inside.scenes, key=lambda scene: scene.position)
    whole = (inside.project, inside.chapters, in_order, inside.characters, inside.assets, inside.variables)
    assert whole == one_by_one
    assert (shape.lines, shape.choices, shape.variables) == ([], [], [])
    assert shape.scenes == inside.scenes


async def test_a_whole_project_inside_a_transaction_holds_what_the_transaction_changed(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    async with services.db.write() as session:
        writes = ledger.within(session)
        assert await writes.project(story.project_id) is not None  # as a change reads it first
        scene = await writes.scene(story.first_scene_id)
        hero = await writes.character(story.hero_id)
        assert scene is not None and hero is not None
        await writes.save_scene(replace(scene, title="Renamed"))
        await writes.add_character(replace(hero, id="chr_new", name="Newcomer"))
        found = await writes.whole_project(story.project_id, shape_only=True, with_text=True)

    assert "Renamed" in {scene.title for scene in found.scenes}
    assert "Newcomer" in {character.name for character in found.characters}
