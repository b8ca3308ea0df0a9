"""Reads of a whole project leave the event loop free.

At 2,000 scenes and 50,000 lines a whole-project read (the check, the map, search, the project
page) took 0.1-0.2 s of the loop's own thread on SQLite, and every other call, an agent's tool call
or another tab, waited for it. These reads now run in a worker thread on a connection of its own;
the story map's layout goes with them.
"""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import event

from romergo.common.actors import user_actor
from romergo.common.errors import RomergoError
from romergo.story.patterns import SearchQuery
from tests.support.story import small_story

DATABASES = ("sqlite",)
"""The database side is the ledgers' contract, run on both (tests/storage/ledgers/test_story_*.py)."""


async def test_whole_project_reads_run_their_statements_off_the_loop(services, actor):
    story = await small_story(services, actor)
    project_id = story.project_id
    reads = {
        "project page": lambda: services.reads.project_data(actor, project_id),
        "outline": lambda: services.reads.outline(actor, project_id),
        "story check": lambda: services.reads.check_story(actor, project_id),
        "story map": lambda: services.reads.story_map(actor, project_id),
        "play-through": lambda: services.reads.simulate(actor, project_id),
        "search": lambda: services.search.search(actor, project_id, SearchQuery("the")),
        "asset usage": lambda: services.assets.assets_with_usage(actor, project_id),
    }
    loop_thread = threading.get_ident()
    for name, read in reads.items():
        with statement_threads(services) as threads:
            await read()
        assert threads, f"{name}: no statement seen"
        if services.db.is_sqlite:
            assert loop_thread not in threads, f"{name} ran a statement on the event loop"
        else:
            # PostgreSQL's statements await the network: the loop serves others meanwhile.
            assert threads == {loop_thread}, name


async def test_the_story_map_is_laid_out_off_the_loop(services, actor, monkeypatch):
    from romergo.story import story_map

    story = await small_story(services, actor)
    threads: list[int] = []
    lay_out = story_map.layered_layout

    def laying_out(*args, **kwargs):
        threads.append(threading.get_ident())
        return lay_out(*args, **kwargs)

    monkeypatch.setattr(story_map, "layered_layout", laying_out)
    drawn = await services.reads.story_map(actor, story.project_id)
    assert {story.first_scene_id, story.second_scene_id} <= {node.scene_id for node in drawn.nodes}
    assert threads and threading.get_ident() not in threads


async def test_someone_elses_project_is_not_found_through_the_thread(services, actor):
    story = await small_story(services, actor)
    stranger = await services.accounts.create_user("stranger")
    for read in (services.reads.project_data, services.reads.check_story, services.reads.story_map):
        with pytest.raises(RomergoError) as refused:
            await read(user_actor(stranger.id, stranger.username), story.project_id)
        assert refused.value.code == "not_found"
        with pytest.raises(RomergoError) as missing:
            await read(actor, "prj_missing")
        assert missing.value.code == "not_found"


class statement_threads:
    """The threads the services' database ran statements on inside the block."""

    def __init__(self, services) -> None:
        self.engines = services.db.sync_engines()
        self.threads: set[int] = set()

    def _seen(self, *_args) -> None:
        self.threads.add(threading.get_ident())

    def __enter__(self) -> set[int]:
        for engine in self.engines:
            event.listen(engine, "before_cursor_execute", self._seen)
        return self.threads

    def __exit__(self, *_exc) -> None:
        for engine in self.engines:
            event.remove(engine, "before_cursor_execute", self._seen)
