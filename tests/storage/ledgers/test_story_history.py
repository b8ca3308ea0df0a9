"""The story ledger's history, revisions, titles and read marks, on both databases."""

from __future__ import annotations

from storage.story.ledger import DatabaseStoryLedger
from storage.story.read_marks import mark_and_newest
from storage.story.records import HistoryQuery
from tests.support.story import revisions, small_story

NAMED = (("scene", "title"), ("chapter", "title"), ("character", "name"))


async def test_a_history_page_is_the_newest_revisions_older_than_before(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    stored = [row.id for row in await revisions(services, story.project_id)]

    page = await ledger.history(actor.user_id, story.project_id, HistoryQuery(limit=2, named=NAMED))
    older = await ledger.history(actor.user_id, story.project_id, HistoryQuery(limit=2, before=stored[-2]))

    assert page is not None and older is not None
    assert [row.id for row in page.revisions] == stored[::-1][:3]  # one more: there is an older page
    assert [row.id for row in older.revisions] == stored[::-1][2:5]
    assert page.titles[story.first_scene_id] == "Opening"
    assert page.titles[story.hero_id] == "Hero"
    assert (page.agents, page.commands, older.titles) == ({}, {}, {})


async def test_a_scenes_history_holds_what_lies_or_lay_in_it(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    line = await services.lines.add_line(actor, story.first_scene_id, "Hello")
    elsewhere = await services.lines.add_line(actor, story.second_scene_id, "Bye")
    query = HistoryQuery(limit=50, scene_id=story.first_scene_id, lying_in=(("dialogue_line", "scene_id"),))

    page = await ledger.history(actor.user_id, story.project_id, query)

    assert page is not None
    assert {row.entity_id for row in page.revisions} == {story.first_scene_id, line.id}
    assert elsewhere.id not in {row.entity_id for row in page.revisions}


async def test_history_titles_and_revisions_are_nothing_to_a_stranger(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    stranger = (await services.accounts.create_user("stranger")).id
    assert await ledger.history(stranger, story.project_id, HistoryQuery(limit=5)) is None
    assert await ledger.titles(stranger, story.project_id, NAMED) is None
    assert await ledger.latest_revisions(stranger, story.project_id, ("scene",)) is None
    assert await ledger.command_changes(stranger, "cmd_missing", NAMED) == ([], {})


async def test_titles_of_wanted_ids_and_lines_by_their_speaker(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    spoken = await services.lines.add_line(actor, story.first_scene_id, "Hello there", story.hero_id)
    told = await services.lines.add_line(actor, story.first_scene_id, "It rains.")
    wanted = {story.first_scene_id, spoken.id, told.id, "scn_missing"}

    found = await ledger.titles(actor.user_id, story.project_id, NAMED, wanted, with_lines=True)
    plain = await ledger.titles(actor.user_id, story.project_id, NAMED, wanted)

    assert found is not None and plain is not None
    titles, lines = found
    assert titles == {story.first_scene_id: "Opening"}
    assert {key: (line.speaker, line.text) for key, line in lines.items()} == {
        spoken.id: ("Hero", "Hello there"),
        told.id: (None, "It rains."),
    }
    assert plain == ({story.first_scene_id: "Opening"}, {})
    everything = await ledger.titles(actor.user_id, story.project_id, (("dialogue_line", "text"),))
    assert everything is not None and everything[0] == {spoken.id: "Hello there", told.id: "It rains."}


async def test_latest_revisions_of_some_ids_or_of_all_of_a_type(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    await services.scenes.update_scene(actor, story.first_scene_id, title="Start")
    newest = {row.entity_id: row.id for row in await revisions(services, story.project_id)}

    every = await ledger.latest_revisions(actor.user_id, story.project_id, ("scene",))
    some = await ledger.latest_revisions(actor.user_id, story.project_id, ("scene",), [story.first_scene_id])
    none = await ledger.latest_revisions(actor.user_id, story.project_id, ("scene",), [])

    assert every == {key: newest[key] for key in (story.first_scene_id, story.second_scene_id)}
    assert some == {story.first_scene_id: newest[story.first_scene_id]}
    assert none == {}


async def test_the_last_change_of_an_entity_and_of_one_never_changed(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    await services.scenes.update_scene(actor, story.first_scene_id, title="Start")
    newest = (await revisions(services, story.project_id))[-1]

    found = await ledger.last_change(story.project_id, "scene", story.first_scene_id)

    assert found is not None
    assert found.revision.id == newest.id and found.revision.after == newest.after
    assert (found.revision.actor_type, found.revision.actor_id) == ("user", actor.user_id)
    assert (found.agent_name, found.command_number) == (None, None)
    assert await ledger.last_change(story.project_id, "scene", "scn_missing") is None


async def test_read_marks_move_forward_only(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    scene = story.first_scene_id
    first = (await revisions(services, story.project_id))[-1].id or 0

    async def mark() -> int | None:
        async with services.db.read() as session:
            return (await mark_and_newest(session, "client-one", story.project_id, "scene", scene))[0]

    assert await mark() is None
    await ledger.remember_reads("client-one", {scene: first + 5})
    await ledger.remember_reads("client-one", {scene: first})  # older: kept as it was
    await ledger.remember_reads("client-one", {})
    assert await mark() == first + 5
    await ledger.remember_reads("client-one", {scene: first + 9, story.second_scene_id: 1})
    assert await mark() == first + 9
