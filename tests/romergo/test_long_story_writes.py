"""Writes across a long story: an import and a replace across every line write lines as
rows, leave the event loop free meanwhile, and keep the history an edit of each line would write."""

from __future__ import annotations

import asyncio

import pytest
from sqlmodel import select

from romergo.interchange import projects, service
from romergo.story import bulk, snapshots
from romergo.story.patterns import SearchQuery
from storage.tables import DialogueLine
from tests.support.big_story import big_story
from tests.support.story import revisions


async def test_each_imported_line_has_the_revision_an_edit_would_write(services, actor):
    story = await big_story(services, actor, scenes=6, lines_per_scene=4, chapters=2)
    twee = (await services.interchange.export_project(actor, story.project_id, "twee")).data
    imported = await services.interchange.import_file(actor, "copy.twee", twee)
    data = await services.reads.project_data(actor, imported.project.id)
    written = await revisions(services, imported.project.id)
    by_line = {r.entity_id: r for r in written if r.entity_type == "dialogue_line"}
    assert len(data.lines) == len(by_line) == 24
    for line in data.lines:
        revision = by_line[line.id]
        assert (revision.action, revision.before) == ("created", None)
        assert revision.after == snapshots.line(line)
    assert {r.batch_id for r in written} == {written[0].batch_id}  # one write: one undo takes it back
    assert {(r.actor_type, r.actor_id) for r in written} == {("user", actor.user_id)}


async def test_an_import_is_taken_back_by_one_undo(services, actor):
    story = await big_story(services, actor, scenes=6, lines_per_scene=4, chapters=2)
    twee = (await services.interchange.export_project(actor, story.project_id, "twee")).data
    imported = await services.interchange.import_file(actor, "copy.twee", twee)
    batch = (await revisions(services, imported.project.id))[0].batch_id
    outcome = await services.undo.undo(actor, f"batch:{batch}")
    assert outcome.reverted > 0 and not outcome.conflicts
    async with services.db.read() as session:
        left = await session.exec(select(DialogueLine).where(DialogueLine.project_id == imported.project.id))
        assert left.all() == []


async def test_other_calls_are_answered_while_a_long_story_is_written(services, actor, monkeypatch):
    # SQLite runs on the event loop's thread: an import that never let the loop go held every other
    # call until it was done (12 s at 2,000 scenes). Small batches here, so a small story spans many.
    monkeypatch.setattr(bulk, "BULK_ROWS", 20)
    monkeypatch.setattr(projects, "SCENES_PER_FLUSH", 5)
    story = await big_story(services, actor, scenes=40, lines_per_scene=10, chapters=4)
    twee = (await services.interchange.export_project(actor, story.project_id, "twee")).data
    writing, written = asyncio.Event(), asyncio.Event()
    create = projects.create_project

    async def creating(tx, document):
        writing.set()
        try:
            return await create(tx, document)
        finally:
            written.set()

    monkeypatch.setattr(service, "create_project", creating)
    importing = asyncio.ensure_future(services.interchange.import_file(actor, "copy.twee", twee))
    await asyncio.wait_for(writing.wait(), 30)
    # A scene view reads on the loop's own thread: answered within the import's next turn or two.
    # (A whole-project read, which takes a worker thread, raced the batches on a busy machine.)
    view = await services.scenes.scene_view(actor, story.scene_ids[0])
    answered_meanwhile = not written.is_set()
    imported = await importing
    assert answered_meanwhile, "the scene view waited until the import was written"
    assert view.scene.id == story.scene_ids[0]
    data = await services.reads.project_data(actor, imported.project.id)
    assert len(data.lines) == 400


@pytest.mark.parametrize("rows", [1, 499, 500, 501, 1001])
async def test_bulk_writes_every_row_once_whatever_the_batch_boundaries(services, actor, rows, monkeypatch):
    monkeypatch.setattr(bulk, "BULK_ROWS", 500)
    story = await big_story(services, actor, scenes=1, lines_per_scene=rows, chapters=1)
    twee = (await services.interchange.export_project(actor, story.project_id, "twee")).data
    imported = await services.interchange.import_file(actor, "copy.twee", twee)
    data = await services.reads.project_data(actor, imported.project.id)
    lines = [r for r in await revisions(services, imported.project.id) if r.entity_type == "dialogue_line"]
    assert len(data.lines) == len(lines) == len({r.entity_id for r in lines}) == rows
    original = await services.reads.project_data(actor, story.project_id)
    texts = [line.text for line in original.lines_of(story.scene_ids[0])]
    assert [line.text for line in data.lines_of(data.scenes[0].id)] == texts


async def test_a_replace_across_every_line_keeps_the_history_an_edit_would_write(services, actor):
    story = await big_story(services, actor, scenes=5, lines_per_scene=4, chapters=1)
    before = {line.id: line for line in (await services.reads.project_data(actor, story.project_id)).lines}
    old = {line_id: snapshots.line(line) for line_id, line in before.items()}
    done = await services.search.replace(actor, story.project_id, SearchQuery("harbour"), "harbor")
    assert (done.texts, done.matches) == (20, 20)
    written = [r for r in await revisions(services, story.project_id) if r.batch_id == done.batch_id]
    assert sorted(r.entity_id for r in written) == sorted(before)
    replaced = {line.id: line for line in (await services.reads.project_data(actor, story.project_id)).lines}
    for revision in written:
        stored = replaced[revision.entity_id]
        assert "harbor lights" in stored.text
        assert (revision.action, revision.before) == ("updated", old[stored.id])
        assert revision.after == snapshots.line(stored)
    undone = await services.undo.undo(actor, f"batch:{done.batch_id}")
    assert undone.reverted == 20 and not undone.conflicts
    again = await services.reads.project_data(actor, story.project_id)
    assert {line.id: line.text for line in again.lines} == {i: line.text for i, line in before.items()}


async def test_a_replace_that_changes_no_text_writes_nothing(services, actor):
    story = await big_story(services, actor, scenes=2, lines_per_scene=3, chapters=1)
    state = len(await revisions(services, story.project_id))
    done = await services.search.replace(actor, story.project_id, SearchQuery("harbour"), "harbour")
    assert done.batch_id is None
    assert len(await revisions(services, story.project_id)) == state


async def test_other_calls_are_answered_while_a_long_replace_is_written(services, actor, monkeypatch):
    monkeypatch.setattr(bulk, "BULK_ROWS", 20)
    story = await big_story(services, actor, scenes=40, lines_per_scene=10, chapters=4)
    other = await big_story(services, actor, scenes=2, lines_per_scene=1, chapters=1)
    writing, written = asyncio.Event(), asyncio.Event()
    update = bulk.updated_in_bulk

    async def updating(tx, *args, **kwargs):
        writing.set()
        try:
            return await update(tx, *args, **kwargs)
        finally:
            written.set()

    monkeypatch.setattr(bulk, "updated_in_bulk", updating)
    replacing = asyncio.ensure_future(
        services.search.replace(actor, story.project_id, SearchQuery("harbour"), "harbor")
    )
    await asyncio.wait_for(writing.wait(), 30)
    view = await services.scenes.scene_view(actor, other.scene_ids[0])  # as in the import's test
    answered_meanwhile = not written.is_set()
    done = await replacing
    assert answered_meanwhile, "the scene view waited until the replace was written"
    assert view.scene.id == other.scene_ids[0] and done.texts == 400
