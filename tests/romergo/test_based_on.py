"""Writes that name the revision they read: merged with what changed since, or refused, never lost."""

from __future__ import annotations

import random

import pytest

from romergo.common.actors import agent_actor
from romergo.story import UNCHANGED
from romergo.story.based_on import EditConflict, attempt, lost_changes, merge_fields
from tests.support.story import database_state, small_story

DATABASES = ("sqlite",)


async def line_revision(services, actor, scene_id, line_id):
    return (await services.scenes.scene_view(actor, scene_id)).revisions[line_id]


async def test_fields_changed_by_one_side_each_are_both_kept(services, actor):
    story = await small_story(services, actor)
    line = await services.lines.add_line(actor, story.first_scene_id, "Who is there?")
    read = await line_revision(services, actor, story.first_scene_id, line.id)
    helper = agent_actor(actor.user_id, "cli_helper", "Helper")
    await services.lines.update_line(helper, line.id, character_id=story.hero_id)

    # The author's draft still carries the old speaker: only the text is the author's change.
    merged = await services.lines.update_line(
        actor, line.id, text="Who goes there?", character_id=None, expected_revision=read
    )
    assert (merged.text, merged.character_id) == ("Who goes there?", story.hero_id)


async def test_the_same_field_changed_on_both_sides_is_a_conflict_and_writes_nothing(services, actor):
    story = await small_story(services, actor)
    line = await services.lines.add_line(actor, story.first_scene_id, "Who is there?")
    read = await line_revision(services, actor, story.first_scene_id, line.id)
    helper = agent_actor(actor.user_id, "cli_helper", "Helper")
    await services.lines.update_line(helper, line.id, text="Who hides there?")
    now = await line_revision(services, actor, story.first_scene_id, line.id)
    untouched = await database_state(services)

    outcome = await attempt(
        services.lines.update_line(actor, line.id, text="Who waits?", expected_revision=read)
    )

    assert isinstance(outcome, EditConflict)
    assert (outcome.revision, outcome.expected_revision) == (now, read)
    assert [(f.field, f.base, f.mine, f.theirs) for f in outcome.fields] == [
        ("text", "Who is there?", "Who waits?", "Who hides there?")
    ]
    assert outcome.changed_by is not None
    assert (outcome.changed_by.actor_type, outcome.changed_by.client_id) == ("agent", "cli_helper")
    assert await database_state(services) == untouched


async def test_a_revision_from_the_future_is_refused(services, actor):
    story = await small_story(services, actor)
    with pytest.raises(Exception, match=r"\[invalid_argument\] expected_revision 999999"):
        await services.scenes.update_scene(actor, story.first_scene_id, title="X", expected_revision=999999)


@pytest.mark.parametrize("seed", range(40))
async def test_two_writers_interleaved_never_lose_a_change_silently(services, actor, seed):
    """Two writers over one line, each with the revision it read, in a random order: afterwards
    every field holds a change someone made on purpose, and a writer whose change is missing was
    told (a conflict); nobody's change disappears without a word."""
    rng = random.Random(seed)
    story = await small_story(services, actor)
    other = await services.characters.add_character(actor, story.project_id, "Other")
    line = await services.lines.add_line(actor, story.first_scene_id, "base")
    writers = [actor, agent_actor(actor.user_id, "cli_helper", "Helper")]
    read: dict[int, int] = {}
    kept: dict[str, set[object]] = {"text": {"base"}, "character_id": {None}}
    for step in range(6):
        who = rng.randrange(2)
        if who not in read or rng.random() < 0.3:
            read[who] = await line_revision(services, actor, story.first_scene_id, line.id)
            continue
        text = rng.choice([None, f"text {step}"])
        speaker = rng.choice([UNCHANGED, None, story.hero_id, other.id])
        outcome = await attempt(
            services.lines.update_line(writers[who], line.id, text, speaker, expected_revision=read[who])
        )
        if isinstance(outcome, EditConflict):
            continue  # told: nothing written
        if text is not None:
            kept["text"].add(text)
        if speaker is not UNCHANGED:
            kept["character_id"].add(speaker)
        now = (await services.scenes.scene_view(actor, story.first_scene_id)).lines[0].line
        # Each field holds a value someone wrote on purpose (or the first one).
        assert now.text in kept["text"] and now.character_id in kept["character_id"]
        read[who] = await line_revision(services, actor, story.first_scene_id, line.id)


@pytest.mark.parametrize("seed", range(200))
def test_a_three_way_merge_is_a_merge_or_names_the_conflict(seed):
    rng = random.Random(seed)
    values = ["a", "b", "c"]
    base = {field: rng.choice(values) for field in "xyz"}
    theirs = {field: rng.choice([base[field], *values]) for field in "xyz"}
    mine = {field: rng.choice(values) for field in "xyz" if rng.random() < 0.7}
    write, conflicts = merge_fields(base, theirs, mine)
    result = {**theirs, **write}
    clashing = {c.field for c in conflicts}
    for field in "xyz":
        mine_changed = field in mine and mine[field] != base[field]
        theirs_changed = theirs[field] != base[field]
        if field in clashing:
            assert mine_changed and theirs_changed and mine[field] != theirs[field]
        elif mine_changed:
            assert result[field] == mine[field]  # mine kept; theirs, if changed, was the same
        else:
            assert result[field] == theirs[field]  # theirs kept (or nobody changed it)


def test_a_write_as_given_loses_what_it_sets_otherwise_than_a_change_made_since():
    base = {"title": "Quay", "is_ending": False, "entry_effects": None}
    theirs = {"title": "Quay at dusk", "is_ending": True, "entry_effects": None}
    # The title sent as it was read still undoes their change; the same change on both loses nothing.
    assert lost_changes(base, theirs, {"title": "Quay", "is_ending": True}) == ["title"]
    assert lost_changes(base, theirs, {"entry_effects": "set seen = true"}) == []
