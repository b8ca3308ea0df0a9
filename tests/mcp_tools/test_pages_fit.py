"""Pages that every common agent harness shows whole, with `next_page` where it cannot be lost.

Codex shows about 12,000 characters of a result (its estimate counts UTF-8 bytes), Gemini CLI
and opencode cut from the middle, Claude Code keeps 50,000 unless the tool declares more. So by
default each form of a page, the text rendering and the structured JSON, stays within 10,000
(UTF-8 bytes, never fewer than its characters), and `next_page` comes before the data in both.
The bounds are written out here, not imported: they are what was promised to agents.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult

from mcp_tools.envelope import escape
from tests.support.big_story import big_story
from tests.support.contract import PAGED_TOOLS
from tests.support.oauth import mcp_client, personal_token
from tests.support.server import RunningServer
from tests.support.story import small_story
from tests.support.tools import ALL_SCOPES, agent, agent_of, text_of, untrusted

DEFAULT_PAGE = 10_000
SMALLEST_PAGE = 2_000
LARGEST_PAGE = 60_000
MAX_PAGES = 400


def sizes(result: CallToolResult) -> tuple[int, int]:
    """The text rendering's and the structured content's size, in UTF-8 bytes."""
    structured = json.dumps(result.structured_content, ensure_ascii=False)
    return len(text_of(result).encode()), len(structured.encode())


async def outline_pages(
    helper: Any, project_id: str, most: int | None = None, **arguments: Any
) -> list[CallToolResult]:
    """The outline's pages from the first: all of them, or the first `most`."""
    pages: list[CallToolResult] = []
    page = None
    for _ in range(most or MAX_PAGES):  # bounded: a paging bug must fail, not spin
        more: dict[str, str] = {"page": page} if page else {}
        result = await helper.call("romergo_get_project_outline", project_id=project_id, **arguments, **more)
        assert not result.is_error, text_of(result)
        pages.append(result)
        page = untrusted(result)["next_page"]
        if page is None or len(pages) == most:
            return pages
    raise AssertionError(f"no last page after {MAX_PAGES}")


def scene_ids(pages: list[CallToolResult]) -> list[str]:
    return [
        scene["id"]
        for result in pages
        for chapter in untrusted(result)["data"]["chapters"]
        for scene in chapter["scenes"]
    ]


async def long_outline(services: Any, actor: Any) -> tuple[str, list[str], str]:
    story = await big_story(services, actor, scenes=1500, lines_per_scene=1, chapters=30)
    token, _ = await services.agents.personal.create("writer", name="Helper", scopes=ALL_SCOPES)
    return story.project_id, story.scene_ids, token


async def test_a_long_outline_comes_in_pages_that_fit_with_next_page_before_the_data(services, actor):
    project_id, scenes, token = await long_outline(services, actor)
    async with agent(services, token) as helper:
        pages = await outline_pages(helper, project_id)
    for result in pages:
        text_size, structured_size = sizes(result)
        assert text_size <= DEFAULT_PAGE and structured_size <= DEFAULT_PAGE, (text_size, structured_size)
        keys = list(untrusted(result))
        assert keys.index("next_page") < keys.index("data"), keys
        assert set(keys[: keys.index("next_page")]) <= {"notice"}, keys
    for result in pages[:-1]:
        text, token_ = text_of(result), untrusted(result)["next_page"]
        assert text.index(f'page="{token_}"') < text.index("<untrusted-data-"), text[:400]
    assert len(pages) >= 5 and untrusted(pages[-1])["truncated"] is False
    assert scene_ids(pages) == scenes  # every scene exactly once, in story order


async def test_a_larger_page_size_takes_fewer_pages_that_stay_within_it(services, actor):
    project_id, scenes, token = await long_outline(services, actor)
    async with agent(services, token) as helper:
        default = await outline_pages(helper, project_id)
        larger = await outline_pages(helper, project_id, page_size=40_000)
    assert 2 <= len(larger) < len(default) / 3, (len(larger), len(default))
    assert all(max(sizes(result)) <= 40_000 for result in larger)
    assert max(sizes(larger[0])) > DEFAULT_PAGE
    assert all("page_note" not in untrusted(result) for result in larger)
    assert scene_ids(larger) == scenes


async def test_a_page_size_out_of_range_is_clamped_and_the_result_says_so(services, actor):
    project_id, scenes, token = await long_outline(services, actor)
    async with agent(services, token) as helper:
        small = await outline_pages(helper, project_id, page_size=10, most=5)
        huge = await outline_pages(helper, project_id, page_size=10**12)
    assert len(small) == 5 and all(max(sizes(result)) <= SMALLEST_PAGE for result in small)
    assert all(max(sizes(result)) <= LARGEST_PAGE for result in huge)
    assert max(sizes(huge[0])) > LARGEST_PAGE - 5_000  # clamped to the largest, not refused
    for result, words in [(small[0], "at least 2,000"), (huge[0], "at most 60,000")]:
        note = untrusted(result)["page_note"]
        assert words in note and note in text_of(result), note
        assert text_of(result).index(note) < text_of(result).index("<untrusted-data-")
    assert scene_ids(huge) == scenes


async def test_the_paged_tools_declare_their_largest_page_to_claude_code(server: RunningServer):
    # Over HTTP, as a harness lists the tools: Claude Code reads `_meta` from tools/list.
    async with mcp_client(server.base_url, personal_token(server, "ada")) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    for name in PAGED_TOOLS:
        assert tools[name].meta == {"anthropic/maxResultSizeChars": LARGEST_PAGE}, name
        page_size = tools[name].input_schema["properties"]["page_size"]
        assert "10,000" in page_size["description"] and "60,000" in page_size["description"], name
    assert all(tool.meta is None for name, tool in tools.items() if name not in PAGED_TOOLS)


async def test_a_line_larger_than_the_page_gets_a_page_of_its_own_whole_and_marked(services, author, actor):
    story = await small_story(services, actor)
    # Zero-width spaces are shown escaped in both forms: 8 characters each.
    texts = [f"Line {n}: " + "a\u200b" * 900 for n in range(3)]
    for text in texts:
        await services.lines.add_line(actor, story.first_scene_id, text, story.hero_id)
    pages: list[CallToolResult] = []
    page = None
    async with agent_of(services, "writer") as helper:
        for _ in range(20):
            more: dict[str, str] = {"page": page} if page else {}
            result = await helper.call(
                "romergo_get_scene", scene_id=story.first_scene_id, page_size=SMALLEST_PAGE, **more
            )
            assert not result.is_error, text_of(result)
            pages.append(result)
            page = untrusted(result)["next_page"]
            if page is None:
                break
    oversized = [result for result in pages if max(sizes(result)) > SMALLEST_PAGE]
    assert len(oversized) == len(texts)
    for result in oversized:
        assert len(untrusted(result)["data"]["lines"]) == 1
        assert "larger than page_size" in untrusted(result)["page_note"]
    lines = [line["text"] for result in pages for line in untrusted(result)["data"]["lines"]]
    assert lines[-3:] == [escape(text) for text in texts]  # whole, never cut
