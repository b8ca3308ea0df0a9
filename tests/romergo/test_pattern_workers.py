"""Search patterns run in worker processes: a run that overruns is killed, one that runs out of
memory is refused and gives it all back, the event loop stays free meanwhile, and closing the
services ends the processes. Replace goes the same way and still refuses by the story's limits."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import TypeVar

import pytest

from romergo.common.errors import RomergoError
from romergo.story.pattern_workers import PatternWorkers
from romergo.story.patterns import SearchQuery
from tests.support.story import database_state, small_story

T = TypeVar("T")
LONG_LINE = "a" * 1999 + "!"
BACKTRACKING = SearchQuery("(a+)+$", regex=True)


@pytest.fixture
async def quick() -> AsyncIterator[PatternWorkers]:
    """Workers with short limits, so an overrun costs the test a second."""
    workers = PatternWorkers(workers=1, deadline=3.0, run_seconds=1.0, memory_cap=64 * 2**20)
    yield workers
    await workers.close()


async def test_a_run_past_its_limit_is_stopped_and_the_next_search_is_served(quick):
    """Stopped by the library's timeout in the worker, or else by killing the worker at the run's
    limit (which of the two comes first depends on how often the library looks at the clock)."""
    started = time.monotonic()
    refused, lag = await with_loop_lag(expect_refusal(quick.spans(BACKTRACKING, [LONG_LINE])))
    assert "takes too long" in refused.message and refused.code == "invalid_argument"
    assert time.monotonic() - started < 2.5
    assert lag < 0.3, f"the event loop was held {lag:.2f} s"
    assert await quick.spans(SearchQuery("lamp"), ["Lamplight", "none"]) == [[(0, 4)], []]
    assert len(worker_pids()) == 1  # one worker, alive or started afresh: none left behind


async def test_a_run_out_of_memory_is_refused_and_the_worker_ends():
    # Time limits of the ordinary size: on a loaded machine, starting the worker and sending it 30 MB
    # took longer than the short ones, and the run was refused for its time before its memory ran out.
    roomy = PatternWorkers(workers=1, deadline=30.0, run_seconds=20.0, memory_cap=64 * 2**20)
    try:
        refused = await expect_refusal(roomy.spans(SearchQuery("a"), ["a" * 30_000_000]))
        assert "needs more memory than a search may use (64 MB)" in refused.message
        assert worker_pids() == []  # it ended: nothing it allocated is kept
        assert await roomy.spans(SearchQuery("lamp"), ["a lamp"]) == [[(2, 6)]]
    finally:
        await roomy.close()


async def test_a_queued_search_answers_within_its_deadline_or_is_refused(quick):
    runs = [quick.spans(BACKTRACKING, [LONG_LINE]) for _ in range(4)]
    started = time.monotonic()
    answers = await asyncio.gather(*runs, return_exceptions=True)
    assert time.monotonic() - started < 3.0 + 1.0
    for answer in answers:
        assert isinstance(answer, RomergoError), answer
        assert "takes too long" in answer.message or "busy with other searches" in answer.message


async def test_closing_the_services_ends_the_workers(services, actor):
    story = await small_story(services, actor)
    await services.search.search(actor, story.project_id, SearchQuery("Opening"))
    assert len(worker_pids()) == 1
    await services.close()
    assert worker_pids() == []


async def test_a_backtracking_replace_is_refused_in_time_and_changes_nothing(services, actor):
    story = await small_story(services, actor)
    await services.lines.add_line(actor, story.first_scene_id, LONG_LINE)
    before = await database_state(services)
    started = time.monotonic()
    replace = services.search.replace(actor, story.project_id, BACKTRACKING, "b")
    refused, lag = await with_loop_lag(expect_refusal(replace))
    assert "takes too long" in refused.message
    assert time.monotonic() - started < 5.0 + 1.0
    assert lag < 0.3, f"the event loop was held {lag:.2f} s"
    assert await database_state(services) == before


async def test_a_replace_that_would_grow_a_line_past_its_limit_is_refused_by_that_limit(services, actor):
    story = await small_story(services, actor)
    await services.lines.add_line(actor, story.first_scene_id, "x" * 1500)
    before = await database_state(services)
    refused = await expect_refusal(
        services.search.replace(actor, story.project_id, SearchQuery("x"), "y" * 2000)
    )
    assert "Line text" in refused.message and "2000" in refused.message
    assert await database_state(services) == before


async def expect_refusal(call: Awaitable[object]) -> RomergoError:
    with pytest.raises(RomergoError) as refused:
        await call
    return refused.value


async def with_loop_lag(work: Awaitable[T]) -> tuple[T, float]:
    """`work`'s answer and the longest the event loop went without a turn while it ran."""
    task = asyncio.ensure_future(work)
    longest = 0.0
    while not task.done():
        before = time.monotonic()
        await asyncio.sleep(0.01)
        longest = max(longest, time.monotonic() - before - 0.01)
    return await task, longest


def worker_pids() -> list[int]:
    """This process's pattern workers that are still running."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            status = (entry / "status").read_text()
        except OSError:
            continue
        parent = next(line for line in status.splitlines() if line.startswith("PPid:"))
        state = next(line for line in status.splitlines() if line.startswith("State:"))
        running = "zombie" not in state
        if b"pattern_worker.py" in command and int(parent.split()[1]) == os.getpid() and running:
            pids.append(int(entry.name))
    return pids


async def test_a_replace_also_changes_a_text_written_while_its_pattern_ran(services, actor, monkeypatch):
    """Matching happens before the write opens; a text changed meanwhile is matched inside it."""
    story = await small_story(services, actor)
    first = await services.lines.add_line(actor, story.first_scene_id, "The lamp is lit.")
    ran = services.patterns.replaced
    written: list[str] = []

    async def meanwhile_a_line_is_added(*args, **kwargs):
        answer = await ran(*args, **kwargs)
        if not written:
            added = await services.lines.add_line(actor, story.first_scene_id, "Another lamp.")
            written.append(added.id)
        return answer

    monkeypatch.setattr(services.patterns, "replaced", meanwhile_a_line_is_added)
    done = await services.search.replace(actor, story.project_id, SearchQuery("lamp"), "torch")
    assert (done.texts, done.matches) == (2, 2)
    data = await services.reads.project_data(actor, story.project_id)
    texts = {line.id: line.text for line in data.lines}
    assert texts[first.id] == "The torch is lit." and texts[written[0]] == "Another torch."
