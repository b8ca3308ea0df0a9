"""Paging of long results: every paged tool's pages together hold exactly the whole result, and
page tokens are validated (garbage and foreign tokens are invalid, stale ones a conflict).

The page size is lowered here so small stories span several pages; the real sizes are
exercised by the 200 KB scene in test_envelope.py and the long outline in test_pages_fit.py.
"""

from __future__ import annotations

import base64
import itertools
import threading
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import BaseModel

from mcp_tools import paging
from tests.support import media
from tests.support.story import small_story
from tests.support.tools import agent_of, furnished_story, story_state, text_of, untrusted

SMALL_PAGE = 1500
MAX_PAGES = 200


async def all_pages(agent, tool, **arguments):
    pages, page = [], None
    for _ in range(MAX_PAGES):  # bounded: a paging bug must fail, not spin
        result = await agent.call(tool, **arguments, page=page)
        assert not result.is_error, text_of(result)
        assert len(text_of(result).encode()) <= SMALL_PAGE
        pages.append(untrusted(result))
        page = pages[-1]["next_page"]
        assert pages[-1]["truncated"] is (page is not None)
        if page is None:
            return [content["data"] for content in pages]
    raise AssertionError(f"no last page after {MAX_PAGES}")


async def bigger_story(services, actor):
    story = await furnished_story(services, actor)
    second = await services.chapters.add_chapter(
        actor, story.project_id, "Second chapter with a longer title"
    )
    for n in range(7):
        await services.scenes.add_scene(
            actor, story.chapter_id, f"Scene {n} of the first chapter, with some words"
        )
        await services.scenes.add_scene(actor, second.id, f"Scene {n} of the second chapter, with some words")
    for n in range(6):
        await services.characters.add_character(actor, story.project_id, f"Character number {n}")
        await services.assets.import_asset(
            actor, story.project_id, "sound", f"Sound number {n}", media.mp3(2)
        )
        await services.lines.add_line(actor, story.first_scene_id, f"Line {n}: " + "words " * 40)
    return story


def merged_outline(pages):
    chapters: list[dict[str, Any]] = []
    characters: list[dict[str, Any]] = []
    for data in pages:
        assert data["project"] == pages[0]["project"]
        for chapter in data["chapters"]:
            if chapters and chapters[-1]["id"] == chapter["id"]:
                chapters[-1]["scenes"].extend(chapter["scenes"])  # continued from the previous page
            else:
                chapters.append(chapter)
        characters.extend(data["characters"])
        assert data["role"] == pages[0]["role"]
    return {
        "project": pages[0]["project"],
        "chapters": chapters,
        "characters": characters,
        "role": pages[0]["role"],
    }


@pytest.mark.parametrize("long_list", [paging.LONG_LIST, 0], ids=["on the loop", "in a worker thread"])
async def test_every_paged_tool_pages_through_its_whole_result(
    services, author, actor, monkeypatch, long_list
):
    # With LONG_LIST at 0 every list counts as long: each tool's pages are fitted in a worker thread.
    monkeypatch.setattr(paging, "LONG_LIST", long_list)
    story = await bigger_story(services, actor)
    calls = {
        "outline": ("romergo_get_project_outline", {"project_id": story.project_id}),
        "chapter": ("romergo_get_chapter", {"chapter_id": story.chapter_id}),
        "scene": ("romergo_get_scene", {"scene_id": story.first_scene_id}),
        "preview": ("romergo_preview_scene", {"scene_id": story.first_scene_id}),
        "assets": ("romergo_search_assets", {"project_id": story.project_id}),
        "check": ("romergo_check_story", {"project_id": story.project_id}),
    }
    async with agent_of(services, "writer") as agent:
        # Each whole on one page of the largest size.
        whole = {
            name: await agent.ok(tool, **args, page_size=paging.MAX_PAGE_CHARS)
            for name, (tool, args) in calls.items()
        }
        monkeypatch.setattr(paging, "DEFAULT_PAGE_CHARS", SMALL_PAGE)
        paged = {name: await all_pages(agent, tool, **args) for name, (tool, args) in calls.items()}

    assert all(len(pages) >= 2 for pages in paged.values()), {k: len(v) for k, v in paged.items()}
    assert merged_outline(paged["outline"]) == whole["outline"]
    chapter_scenes = [scene for page in paged["chapter"] for scene in page.pop("scenes")]
    assert chapter_scenes == whole["chapter"].pop("scenes")
    assert all(page == whole["chapter"] for page in paged["chapter"])
    scene_lines = [line for page in paged["scene"] for line in page.pop("lines")]
    assert scene_lines == whole["scene"].pop("lines")
    assert all(page == whole["scene"] for page in paged["scene"])  # header, media, choices repeat
    assert [s for page in paged["preview"] for s in page["screen"]] == whole["preview"]["screen"]
    assert [a for page in paged["assets"] for a in page["assets"]] == whole["assets"]["assets"]
    assert [p for page in paged["check"] for p in page["problems"]] == whole["check"]["problems"]


def forged(offset, call, keys):
    return paging.Listed(call, keys).token(offset)


async def test_page_values_that_are_not_this_calls_next_page_are_invalid(
    services, author, actor, monkeypatch
):
    story = await small_story(services, actor)
    other = await services.scenes.add_scene(actor, story.chapter_id, "Other")
    for n in range(8):
        await services.lines.add_line(actor, story.first_scene_id, f"Line {n} " + "x" * 200)
        await services.lines.add_line(actor, other.id, f"Line {n} " + "y" * 200)
    monkeypatch.setattr(paging, "DEFAULT_PAGE_CHARS", SMALL_PAGE)
    async with agent_of(services, "writer") as agent:
        first = untrusted(await agent.call("romergo_get_scene", scene_id=story.first_scene_id))
        token = first["next_page"]
        assert token and first["truncated"] is True
        view = await services.scenes.scene_view(actor, story.first_scene_id)
        keys = [line.line.id for line in view.lines]
        call = f"get_scene:{story.first_scene_id}"
        bad = [
            "!!!",
            "abcd",
            "x" * 300,
            base64.urlsafe_b64encode(b'[1,1,"0","0"]').decode(),
            forged(0, call, keys),
            forged(len(keys), call, keys),
            forged(-1, call, keys),
            token + "A",
        ]
        before = await story_state(services)
        refusals = [
            await agent.error("romergo_get_scene", scene_id=story.first_scene_id, page=b) for b in bad
        ]
        elsewhere = await agent.error("romergo_get_scene", scene_id=other.id, page=token)
        other_tool = await agent.error("romergo_preview_scene", scene_id=story.first_scene_id, page=token)
        wrong_type = await agent.error("romergo_get_scene", scene_id=story.first_scene_id, page=7)
        fine = await agent.call("romergo_get_scene", scene_id=story.first_scene_id, page=token)
    message = (
        "[invalid_argument] page is not a next_page value from this tool; "
        "omit it to start from the beginning."
    )
    assert refusals == [message] * len(bad)
    assert elsewhere == message and other_tool == message
    assert wrong_type.startswith("[invalid_argument] Bad arguments for romergo_get_scene: page: ")
    assert not fine.is_error
    assert await story_state(services) == before


async def test_a_page_token_from_before_a_change_is_a_conflict(services, author, actor, monkeypatch):
    story = await small_story(services, actor)
    for n in range(8):
        await services.lines.add_line(actor, story.first_scene_id, f"Line {n} " + "x" * 200)
    monkeypatch.setattr(paging, "DEFAULT_PAGE_CHARS", SMALL_PAGE)
    async with agent_of(services, "writer") as agent:
        token = untrusted(await agent.call("romergo_get_scene", scene_id=story.first_scene_id))["next_page"]
        await services.lines.add_line(actor, story.first_scene_id, "Inserted", position=0)
        stale = await agent.error("romergo_get_scene", scene_id=story.first_scene_id, page=token)
        again = await agent.call("romergo_get_scene", scene_id=story.first_scene_id)
    assert stale == ("[conflict] The project changed since the first page was read; read again without page.")
    assert untrusted(again)["data"]["lines"][0]["text"] == "Inserted"


@pytest.mark.parametrize("limit", [10, 400])
def test_a_page_holds_at_least_one_item_so_reading_always_advances(limit, monkeypatch):
    from pydantic import BaseModel

    monkeypatch.setattr(paging, "DEFAULT_PAGE_CHARS", limit)

    class Data(BaseModel):
        items: list[str]

    items = ["x" * 300, "y" * 300, "z" * 300]
    seen, page = [], None
    for _ in range(MAX_PAGES):
        result = paging.paged("unit", items, ["1", "2", "3"], lambda part: Data(items=list(part)), page)
        content = result.structured_content["untrusted_content"]
        seen.extend(content["data"]["items"])
        page = content["next_page"]
        if page is None:
            break
    assert seen == items


@given(
    # A scene's few lines (tried whole first), or a long list (the search proper).
    sizes=st.one_of(
        st.lists(st.integers(min_value=1, max_value=50), min_size=1, max_size=60),
        st.lists(st.integers(min_value=1, max_value=300), min_size=201, max_size=1500),
    ),
    start_at=st.integers(min_value=0, max_value=1499),
    limit=st.integers(min_value=1, max_value=20_000),
)
# Pages exactly as large as the limit fit: a random search rarely lands on one.
@example(sizes=[10] * 5, start_at=0, limit=50)
@example(sizes=[10] * 300, start_at=0, limit=1000)
@example(sizes=[10] * 300, start_at=7, limit=2000)
def test_a_page_ends_at_the_largest_end_that_fits(sizes, start_at, limit):
    assert_largest_fitting_end(sizes, start_at, limit)


def assert_largest_fitting_end(sizes: list[int], start_at: int, limit: int) -> None:
    """A page starting at `start_at` (within the list) of items of these sizes ends where the
    largest page that fits ends; one item always goes in."""
    start = min(start_at, len(sizes) - 1)
    totals = [0, *itertools.accumulate(sizes)]

    def size(end: int) -> int:
        return totals[end] - totals[start]

    fitting = [end for end in range(start + 1, len(sizes) + 1) if size(end) <= limit]
    assert paging._fitting_end(start, len(sizes), size, limit) == max(fitting, default=start + 1)


def test_a_long_list_is_measured_in_a_few_pages_near_the_page_size():
    # 4,000 problems of about the same size behind an envelope: the check of a long story.
    totals = [0, *itertools.accumulate(150 + n % 7 for n in range(4000))]
    probes: list[int] = []

    def size(end: int) -> int:
        probes.append(end)
        return 600 + totals[end]

    end = paging._fitting_end(0, 4000, size, 64_000)
    assert 600 + totals[end] <= 64_000 < 600 + totals[end + 1]
    assert len(probes) <= 5, probes
    assert max(probes) <= 1.1 * end, probes  # never a page much larger than the one sent


async def test_a_long_list_is_paged_off_the_event_loop_and_a_short_one_on_it(monkeypatch):
    # Fitting a page of a long list (the check of 2,000 scenes) renders a few pages of it: that
    # work must not hold every other call on the loop.
    monkeypatch.setattr(paging, "new_nonce", lambda: "0123456789abcdef")  # answers comparable
    threads: list[int] = []

    def build(part):
        threads.append(threading.get_ident())
        return Listed(items=list(part))

    for count in (paging.LONG_LIST, paging.LONG_LIST + 1):
        items = [f"item {n} " + "words " * 30 for n in range(count)]  # more than one page
        threads.clear()
        sent = await paging.paged_aside(f"list:{count}", items, items, build, None)
        assert (threading.get_ident() in threads) is (count == paging.LONG_LIST), count
        assert untrusted(sent)["next_page"]
        assert sent == paging.paged(f"list:{count}", items, items, build, None)


class Listed(BaseModel):
    items: list[str]
