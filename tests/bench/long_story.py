"""Benchmark: a story of 2,000 scenes and 50,000 dialogue lines, over HTTP and in Chromium.

The story is written into a fresh data directory before the server starts (tests/support/big_story.py)
and published: an author's long story usually is, and its public copy is megabytes. Then the
outline, the check and one scene are read, and one of its lines edited, through the agent's tools;
one agent's scene reads are timed while another agent runs the check (the check's read must not
stall them); and the project page, the check page and the story map are opened in Debian's
Chromium: time from navigation until the tree (the problem list, the map's canvas) is shown, and
how many DOM elements the page has. Server RSS is read after.

The first of each tool's calls and of each page's loads is the first since the server started
(the issue's "first page load after start-up as fast as any later one"), and is reported beside the
p50. A page's first load is also its browser's first: it fetches that page's scripts (the map's
charting library, say), which later loads take from the browser's cache.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Page, async_playwright, expect

from romergo.common.actors import user_actor
from romergo.common.config import Settings
from romergo.services import build_services
from storage.migrate import upgrade
from tests.bench.process import rss_mb
from tests.browser.conftest import CHROMIUM_ARGS, sign_in
from tests.support.agents import Agent, agent
from tests.support.big_story import BigStory, big_story
from tests.support.server import RunningServer

PASSWORD = "a long bench password 42"
PAGES = {
    "project page": ("", "story-tree"),
    "check page": ("/check", "problems"),
    "map page": ("/map", "story-map"),
}


async def measure(
    scenes: int, lines_per_scene: int, rounds: int, progress: Callable[[str], None]
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        progress(f"writing a story of {scenes} scenes, {scenes * lines_per_scene} lines")
        story, token = await _prepare(Path(folder), scenes, lines_per_scene)
        server = RunningServer(Path(folder), env={"ROMERGO_RATE_LIMIT_PER_MINUTE": "100000"}).start()
        try:
            assert server.process is not None
            result: dict[str, Any] = {"scenes": scenes, "lines": scenes * lines_per_scene}
            result["tools_ms"] = await _tools(server, token, story, rounds)
            result["beside_check_ms"] = await _beside_the_check(server, token, story, rounds)
            progress("tools read; opening the pages in Chromium")
            result["pages"] = await _pages(server, story, rounds)
            result["server_rss_mb"] = rss_mb(server.process.pid)
            return result
        finally:
            server.stop()


async def _prepare(folder: Path, scenes: int, lines_per_scene: int) -> tuple[BigStory, str]:
    await upgrade(f"sqlite+aiosqlite:///{folder / 'romergo.db'}")
    services = build_services(Settings(data_dir=folder))
    try:
        user = await services.accounts.create_user("ada", PASSWORD)
        author = user_actor(user.id, user.username)
        story = await big_story(services, author, scenes, lines_per_scene, max(1, scenes // 50))
        await services.publishing.publish_project(author, story.project_id)
        token, _ = await services.agents.personal.create("ada", name="Bench")
        return story, token
    finally:
        await services.close()


async def _tools(server: RunningServer, token: str, story: BigStory, rounds: int) -> dict[str, list[float]]:
    scene_id = story.scene_ids[len(story.scene_ids) // 2]
    async with agent(server.base_url, token) as me:
        line_id = (await me.call("romergo_get_scene", scene_id=scene_id))["untrusted_content"]["data"][
            "lines"
        ][0]["id"]
        calls = {
            "outline": ("romergo_get_project_outline", {"project_id": story.project_id}),
            "check": ("romergo_check_story", {"project_id": story.project_id}),
            "get_scene": ("romergo_get_scene", {"scene_id": scene_id}),
            "update_dialogue_line": ("romergo_update_dialogue_line", {"line_id": line_id, "text": "Again."}),
        }
        times: dict[str, list[float]] = {name: [] for name in calls}
        for _ in range(rounds):
            for name, (tool, arguments) in calls.items():
                started = time.perf_counter()
                await me.call(tool, **arguments)
                times[name].append((time.perf_counter() - started) * 1000)
    return times


async def _beside_the_check(server: RunningServer, token: str, story: BigStory, checks: int) -> list[float]:
    """One agent's `romergo_get_scene` round trips while another runs `checks` story checks in a
    row: what a long story's whole-project reads cost everyone else."""
    scene_id = story.scene_ids[len(story.scene_ids) // 2]
    async with agent(server.base_url, token) as reader, agent(server.base_url, token) as checker:
        await reader.call("romergo_get_scene", scene_id=scene_id)
        checking = asyncio.ensure_future(_checks(checker, story.project_id, checks))
        times: list[float] = []
        while not checking.done() or not times:
            started = time.perf_counter()
            await reader.call("romergo_get_scene", scene_id=scene_id)
            times.append((time.perf_counter() - started) * 1000)
        await checking
    return times


async def _checks(checker: Agent, project_id: str, count: int) -> None:
    for _ in range(count):
        await checker.call("romergo_check_story", project_id=project_id)


async def _pages(server: RunningServer, story: BigStory, rounds: int) -> dict[str, dict[str, Any]]:
    executable = shutil.which("chromium")
    assert executable, "Debian's chromium is required: scripts/test installs it"
    shown: dict[str, dict[str, Any]] = {}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        page = await (await browser.new_context()).new_page()
        await sign_in(page, server, "ada", PASSWORD)
        for name, (suffix, ready) in PAGES.items():
            times = []
            for _ in range(rounds):
                started = time.perf_counter()
                await page.goto(f"{server.base_url}/projects/{story.project_id}{suffix}")
                await expect(_ready(page, ready)).to_be_visible(timeout=120_000)
                times.append((time.perf_counter() - started) * 1000)
            elements = await page.evaluate("document.querySelectorAll('*').length")
            shown[name] = {"ms": times, "dom_elements": elements}
        await browser.close()
    return shown


def _ready(page: Page, what: str) -> Any:
    if what == "story-map":  # drawn: ECharts has made its canvas from the map's options
        return page.get_by_test_id(what).locator("canvas").first
    if what == "problems":
        return page.get_by_role("list", name="Problems")
    return page.get_by_test_id(what)
