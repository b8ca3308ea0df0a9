"""A regular expression that backtracks without end is stopped at its deadline, away from the server.

`(a+)+$` against a 2,000-character line tries every way of splitting the line before giving up. It
used to run on the event loop: 5 s per call while every other request waited, four at once up to
24 s, and a search page left open on such a pattern stalled the whole server at every edit anywhere
in the project. Now patterns run in a worker process under a hard deadline: the search is refused
in words saying it took too long, and another agent's reads keep being answered meanwhile.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from playwright.async_api import expect

from tests.support.neighbours import Demo, demo_of, reads_for, reads_while, refusal
from tests.support.oauth import mcp_client, personal_token
from tests.support.server import RunningServer
from tests.support.signed_in_page import signed_in_page
from tests.support.tools import Agent

pytestmark = pytest.mark.long

# A server of its own: the neighbour reads as fast as it can, past the usual calls per minute.
SERVER_ENV = {"ROMERGO_RATE_LIMIT_PER_MINUTE": "100000"}
AUTHOR = "ada"
LONG_LINE = "a" * 1999 + "!"
BACKTRACKING = ["(a+)+$", r"(\w+\s?)+$"]
DEADLINE = 5.0  # the search's deadline: the refusal must come within it (plus a noisy machine's slack)
SLACK = 3.0
PROMPTLY = 2.5  # a neighbour's read: half the deadline a stalled server makes it wait (5-24 s before);
# a busy 2-core machine answers within about 1.2 s


@pytest.fixture(scope="module")
def author(server: RunningServer) -> str:
    return personal_token(server, AUTHOR, "--scopes", "read,edit")


@pytest.fixture(scope="module")
async def demo(server: RunningServer, author: str) -> Demo:
    async with mcp_client(server.base_url, author) as client:
        agent = Agent(client)
        found = await demo_of(agent)
        await agent.ok("romergo_add_dialogue_line", scene_id=found.scene_id, text=LONG_LINE)
    return found


@pytest.mark.parametrize("pattern", BACKTRACKING)
async def test_a_backtracking_search_is_stopped_while_others_are_served(
    server: RunningServer, author: str, demo: Demo, pattern: str
):
    async with mcp_client(server.base_url, author) as attacker, mcp_client(server.base_url, author) as reader:
        started = time.monotonic()
        search = Agent(attacker).call(
            "romergo_search_story", project_id=demo.project_id, query=pattern, regex=True
        )
        result, reads = await reads_while(Agent(reader), demo.scene_id, search)
        took = time.monotonic() - started

    text = refusal(result)
    assert text.startswith("[invalid_argument] ") and "too long" in text, text
    assert took < DEADLINE + SLACK, f"answered after {took:.1f} s"
    assert max(reads) < PROMPTLY, f"a neighbour's read waited {max(reads):.2f} s"


async def test_four_backtracking_searches_at_once_each_end_by_their_deadline(
    server: RunningServer, author: str, demo: Demo
):
    async def one_search() -> tuple[str, float]:
        async with mcp_client(server.base_url, author) as client:
            started = time.monotonic()
            result = await Agent(client).call(
                "romergo_search_story", project_id=demo.project_id, query="(a+)+$", regex=True
            )
            return refusal(result), time.monotonic() - started

    async with mcp_client(server.base_url, author) as reader:
        await Agent(reader).ok("romergo_get_scene", scene_id=demo.scene_id)  # connected before timing
        searches = asyncio.gather(*(one_search() for _ in range(4)))
        answers, reads = await reads_while(Agent(reader), demo.scene_id, searches)

    for text, took in answers:
        assert text.startswith("[invalid_argument] ") or text.startswith("[rate_limited] "), text
        assert "too long" in text or "busy" in text, text
        assert took < DEADLINE + SLACK, f"answered after {took:.1f} s"
    assert max(reads) < PROMPTLY, f"a neighbour's read waited {max(reads):.2f} s"


async def test_a_search_page_left_on_a_backtracking_pattern_does_not_stall_edits(
    server: RunningServer, author: str, demo: Demo
):
    """The page runs its search again after every change to the project: each run is stopped at its
    deadline in the worker, while the server goes on answering everyone."""
    async with signed_in_page(server, AUTHOR) as page, mcp_client(server.base_url, author) as client:
        agent = Agent(client)
        await page.goto(f"{server.base_url}/projects/{demo.project_id}/search")
        await page.get_by_label("Find").fill("(a+)+$")
        await page.get_by_role("checkbox", name="Regular expression").click()
        await expect(page.get_by_role("alert")).to_contain_text("too long", timeout=(DEADLINE + SLACK) * 1000)

        slowest = 0.0
        for round_ in range(3):
            started = time.monotonic()
            await agent.ok("romergo_update_scene", scene_id=demo.scene_id, title=f"The Long Line {round_}")
            slowest = max([slowest, time.monotonic() - started, *await reads_for(agent, demo.scene_id, 3.0)])
    assert slowest < PROMPTLY, f"an edit or a read waited {slowest:.2f} s"
