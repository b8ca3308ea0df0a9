"""The project page and the check page of a long story cost what a short story's cost.

A story of 2,000 scenes is drawn with the same SQL statements and the same number of elements as
one of 200 in as many chapters: chapters start closed, an open chapter and the problem list show
a hundred rows at a time, and a scene's menu is built only when it is opened. Real services on a
real database file, the real page code in a NiceGUI tab of its own (no browser needed to count).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from nicegui import Client
from nicegui.page import page as nicegui_page

from romergo.access.accounts.ledger import User
from romergo.services import Services
from tests.support.big_story import big_story
from tests.support.statements import counting
from tests.ui.tabs import click
from ui.components.story_tree import SCENES_AT_ONCE
from ui.context import PageContext
from ui.pages import check, project

Page = Callable[[PageContext, str], Awaitable[None]]
PAGES = {"project": project.page, "check": check.page}


async def drawn(services: Services, author: User, page: Page, project_id: str) -> tuple[int, Client]:
    """(SQL statements, the tab) of opening `page` on the project in a tab of its own."""
    tab = Client(nicegui_page("/"), request=None)
    with tab, counting(services) as seen:
        await page(PageContext(services, author, "session"), project_id)
    return seen.count, tab


@pytest.mark.parametrize("name", PAGES)
async def test_a_long_story_draws_like_a_short_one(services, author, actor, client, name):
    short = await big_story(services, actor, scenes=200, lines_per_scene=2, chapters=40)
    long = await big_story(services, actor, scenes=2000, lines_per_scene=2, chapters=40)
    page = PAGES[name]
    await drawn(services, author, page, short.project_id)  # first-use caches of the page code

    short_statements, short_tab = await drawn(services, author, page, short.project_id)
    long_statements, long_tab = await drawn(services, author, page, long.project_id)

    assert long_statements == short_statements
    assert len(long_tab.elements) == len(short_tab.elements)
    assert len(long_tab.elements) < 1_000, "a long story is drawn in full"


async def test_an_open_chapter_shows_a_hundred_scenes_and_more_on_request(services, author, actor, client):
    story = await big_story(services, actor, scenes=2000, lines_per_scene=1, chapters=1)
    _, tab = await drawn(services, author, project.page, story.project_id)
    assert scene_rows(tab) == []  # a long story opens with its chapters closed

    with tab:
        click(tab, "Show the scenes of Chapter 1")
        assert scene_rows(tab) == story.scene_ids[:SCENES_AT_ONCE]
        click(tab, f"Show {SCENES_AT_ONCE} more of {2000 - SCENES_AT_ONCE}")
        assert scene_rows(tab) == story.scene_ids[: 2 * SCENES_AT_ONCE]

        click(tab, "Hide the scenes of Chapter 1")
        assert scene_rows(tab) == []


async def test_a_short_story_opens_with_every_scene_shown(services, author, actor, client):
    story = await big_story(services, actor, scenes=60, lines_per_scene=1, chapters=3)
    _, tab = await drawn(services, author, project.page, story.project_id)
    assert scene_rows(tab) == story.scene_ids


def scene_rows(tab: Client) -> list[str]:
    return [
        element.props["data-scene-row"]
        for element in tab.elements.values()
        if "data-scene-row" in element.props and not element.is_deleted
    ]
