"""The Quick tour as pictures: every page a newcomer meets, at 1280 and at 900 px wide.

Saved under test-artifacts/tour/<width>/ so a reviewer can look at each page without running
anything by hand. Each shot first waits for what the page must show, so a broken page fails here
instead of being photographed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Locator, Page, expect

from tests.browser.conftest import ARTIFACTS, Author, OpenPage
from tests.browser.test_demo_agent import CELLAR, reply_of, send_command, start_demo_from_panel
from tests.support.panel import panel

TOUR = ARTIFACTS / "tour"
WIDTHS = (1280, 900)


async def shoot(page: Page, width: int, name: str, must_show: Locator) -> Path:
    await expect(must_show.first).to_be_visible(timeout=20_000)
    path = TOUR / str(width) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000, f"{path} looks empty"
    return path


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_tour_pages(author: Author, open_page: OpenPage, width: int):
    page = await open_page(author, "/projects")
    await page.set_viewport_size({"width": width, "height": 900})
    await shoot(page, width, "01-projects", page.get_by_role("link", name="The Lighthouse Keeper's Secret"))
    pages = [
        ("02-outline", author.demo_path, page.get_by_test_id("story-tree")),
        ("03-chapter", next(iter(author.chapters.values())), page.get_by_test_id("chapter-title")),
        ("04-scene", author.scenes[CELLAR], page.get_by_text(CELLAR)),
        ("05-characters", f"{author.demo_path}/characters", page.get_by_test_id("character-name")),
        ("06-assets", f"{author.demo_path}/assets", page.get_by_test_id("asset-name")),
        ("06b-variables", f"{author.demo_path}/variables", page.get_by_test_id("variable-has_key")),
        ("07-check", f"{author.demo_path}/check", page.get_by_text("cannot be reached", exact=False)),
        ("08-history", f"{author.demo_path}/history", page.get_by_test_id("revision")),
        ("09-play", f"/play/{author.demo_id}", page.get_by_role("button", name="Play from the start")),
        ("10-agents", "/settings/agents", page.get_by_text("Connected agents")),
    ]
    for name, path, must_show in pages:
        await page.goto(author.url(path))
        await shoot(page, width, name, must_show)


async def test_the_tour_with_the_demo_agent(author: Author, open_page: OpenPage):
    page = await open_page(author, author.scenes[CELLAR])
    await start_demo_from_panel(page)
    await shoot(page, 1280, "11-panel-listening", panel(page).get_by_test_id("presence"))
    number = await send_command(page, "Describe this scene")
    await reply_of(page, number)
    await shoot(page, 1280, "12-panel-reply", panel(page).locator('[data-kind="reply"]'))
    number = await send_command(page, "Check the transition logic")
    await reply_of(page, number)
    await page.set_viewport_size({"width": 900, "height": 900})
    await shoot(page, 900, "13-panel-check", panel(page).locator('[data-kind="reply"]'))
