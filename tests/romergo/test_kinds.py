"""The registry of story entity kinds: every kind has an entry whose references hold, and each
kind undo can remove and bring back comes back exactly as its snapshot describes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

import pytest

from romergo.channels.vocabulary import ENTITY_TYPES as CHANNEL_ENTITY_TYPES
from romergo.common.errors import RomergoError
from romergo.story import ChoiceSpec
from romergo.story.kinds import ENTITY_TYPES, KINDS, EntityType, Kind, field_label, within
from storage.story.entity_tables import TABLES
from tests.support.story import TINY_PNG, small_story

DATABASES = ("sqlite",)
"""The database side is the story ledger's contract, run on both (tests/storage/ledgers/test_story_*.py)."""


def test_every_entity_type_has_one_entry_under_its_own_name():
    assert tuple(KINDS) == get_args(EntityType) == ENTITY_TYPES == CHANNEL_ENTITY_TYPES
    for entity_type, kind in KINDS.items():
        assert kind.entity_type == entity_type
        assert kind.label and kind.word


@pytest.mark.parametrize("kind", KINDS.values(), ids=list(KINDS))
def test_an_entry_names_columns_of_its_table_and_kinds_of_the_registry(kind: Kind):
    columns = set(TABLES[kind.entity_type].model_fields)
    assert kind.title_key in columns
    assert {shown.key for shown in kind.review_fields} <= columns
    if kind.worded is not None:
        assert kind.worded in columns
    if kind.parent is not None:
        assert kind.parent.column in columns
        assert kind.parent.kind in KINDS
    for held in (*kind.holds, *kind.guards):
        assert KINDS[held.kind].parent is not None
        assert KINDS[held.kind].parent.kind == kind.entity_type
    assert set(kind.guards) <= set(kind.holds)


def test_kinds_undo_leaves_alone_say_so_or_travel_inside_another():
    for kind in KINDS.values():
        if kind.inside is not None:
            assert kind.inside in KINDS
            assert any(held.kind == kind.entity_type for held in KINDS[kind.inside].holds)
        elif kind.remove is None or kind.recreate is None:
            assert kind.kept_created and kind.kept_deleted
    assert [k for k, kind in KINDS.items() if kind.remove is None] == ["project", "choice"]


def test_a_registry_lookup_of_an_unknown_kind_fails_loudly():
    with pytest.raises(KeyError):
        KINDS["paragraph"]


@dataclass
class Entities:
    project_id: str
    ids: dict[str, str]


@pytest.fixture
async def entities(services, actor) -> Entities:
    """One entity of each kind undo removes and brings back, the ones that own others owning some:
    a chapter with scenes, a scene with lines (one spoken) and choices, state on all three."""
    story = await small_story(services, actor)
    await services.variables.add_variable(actor, story.project_id, "brave", "flag", True, "Brave?")
    variable = await services.variables.add_variable(actor, story.project_id, "gold", "number", 3)
    await services.lines.add_line(actor, story.first_scene_id, "The wind howls.")
    line = await services.lines.add_line(
        actor, story.first_scene_id, "Who's there?", story.hero_id, condition="brave"
    )
    await services.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("Go on", story.second_scene_id, "brave", "set gold = 4")]
    )
    await services.scenes.update_scene(actor, story.first_scene_id, entry_effects="set gold = 1")
    image = await services.assets.import_asset(actor, story.project_id, "background", "Dusk", TINY_PNG)
    await services.scenes.set_scene_background(actor, story.first_scene_id, image.id)
    silent = await services.characters.add_character(actor, story.project_id, "Narrator")
    ids = {
        "chapter": story.chapter_id,
        "scene": story.first_scene_id,
        "dialogue_line": line.id,
        "character": silent.id,
        "asset": image.id,
        "variable": variable.id,
    }
    return Entities(story.project_id, ids)


MOVED = [entity_type for entity_type, kind in KINDS.items() if kind.remove and kind.recreate]


@pytest.mark.parametrize("entity_type", MOVED)
async def test_a_removed_entity_comes_back_as_its_snapshot_describes_it(
    services, actor, entities, entity_type
):
    kind = KINDS[entity_type]
    entity_id = entities.ids[entity_type]
    assert kind.remove is not None and kind.recreate is not None
    store = services.projects.store
    async with store.write(actor) as tx:
        await tx.project_by_id(entities.project_id)
        record = await tx.story.entity(entity_type, entity_id)
        snapshot = await kind.snapshot(tx, record, True)
        await kind.remove(tx, record)

    async with store.read(actor) as uow:
        gone = await uow.story.entity(entity_type, entity_id)
        assert gone is None or gone.deleted_at is not None  # an asset stays, marked deleted

    async with store.write(actor) as tx:
        await tx.project_by_id(entities.project_id)
        back = await kind.recreate(tx, entity_id, snapshot)
        assert await kind.snapshot(tx, back, True) == snapshot

    async with store.write(actor) as tx:  # as a later transaction reads it from the database
        await tx.project_by_id(entities.project_id)
        assert await kind.snapshot(tx, await tx.story.entity(entity_type, entity_id), True) == snapshot
    assert snapshot.get("id") == entity_id
    assert kind.title(snapshot)


async def test_a_character_who_speaks_lines_is_not_removed(services, actor):
    story = await small_story(services, actor)
    await services.lines.add_line(actor, story.first_scene_id, "Hello.", story.hero_id)
    kind = KINDS["character"]
    assert kind.remove is not None
    with pytest.raises(RomergoError) as refused:
        async with services.projects.store.write(actor) as tx:
            await tx.project_by_id(story.project_id)
            await kind.remove(tx, await tx.story.entity("character", story.hero_id))
    assert refused.value.code == "conflict"
    data = await services.reads.project_data(actor, story.project_id)
    assert [c.name for c in data.characters] == ["Hero"]


def test_a_kind_a_room_places_inside_chapters_lies_in_a_chapter():
    for kind in KINDS.values():
        if kind.reach is not None and not kind.reach.shared:
            assert kind.entity_type in within("chapter")
    assert within("chapter") == ("chapter", "scene", "dialogue_line", "choice")


def test_a_field_reads_as_the_review_labels_it_wherever_the_author_meets_it():
    assert field_label("variable", "initial") == "Starts as"
    assert field_label("dialogue_line", "condition") == "Shown only when"
    assert field_label("scene", "music_asset_id") == "Music"
    assert field_label("scene", "condition") is None
    assert field_label("no such kind", "title") is None
