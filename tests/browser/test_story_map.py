"""The story map in Chromium: the demo drawn with its deliberate problem marked, a real
click on a scene's box opening it, and an agent's edit appearing on the open map."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page, expect

from romergo.demo import story as demo_story
from tests.browser.conftest import Author, OpenPage
from tests.support.agents import agent
from tests.support.oauth import personal_token

LIVE = 5_000  # ms

# The chart's own data and where ECharts drew each scene, read from the page (the map is a canvas).
NODES = """
(el) => {
  const chart = getElement(el.id.slice(1)).chart;
  const series = chart.getOption().series[0];
  return series.data.map((node) => ({
    id: node.id, name: node.name, title: node.title, marks: node.marks || [],
    at: chart.convertToPixel({ seriesIndex: 0 }, [node.x, node.y]),
  }));
}
"""


async def map_nodes(page: Page) -> list[dict[str, Any]]:
    chart = page.get_by_test_id("story-map")
    await expect(chart.locator("canvas").first).to_be_visible()
    nodes: list[dict[str, Any]] = await chart.evaluate(NODES)
    return nodes


@pytest.fixture
def author(own_author: Author) -> Author:
    """A test here changes the story: each gets a demo of its own."""
    return own_author


async def test_the_demo_map_marks_the_cellar_and_a_click_opens_a_scene(author: Author, open_page: OpenPage):
    page = await open_page(author, f"{author.demo_path}/map")
    await expect(page.get_by_test_id("map-summary")).to_have_text("12 scenes, 1 marked with a problem.")
    nodes = await map_nodes(page)
    assert len(nodes) == 12
    cellar = next(n for n in nodes if n["title"] == demo_story.DELIBERATE_PROBLEM_SCENE)
    assert cellar["name"].startswith("⚠ ") and cellar["marks"] == ["unreachable"]
    start = next(n for n in nodes if n["name"].startswith("▶ "))
    assert start["name"] == "▶ Arrival at the…"  # cut at a word; the tooltip has the whole title

    box = await page.get_by_test_id("story-map").bounding_box()
    assert box is not None
    x, y = cellar["at"]
    await page.mouse.move(box["x"] + x, box["y"] + y)
    tooltip = page.get_by_text("⚠ unreachable")  # ECharts' tooltip, made from the node's data
    await expect(tooltip).to_be_visible()
    await expect(tooltip.locator("xpath=..")).to_contain_text("The Forgotten CellarThe Keeper")
    await page.mouse.click(box["x"] + x, box["y"] + y)
    await expect(page.get_by_test_id("scene-title")).to_have_text(demo_story.DELIBERATE_PROBLEM_SCENE)


async def test_the_chapter_filter_shows_one_chapters_scenes(author: Author, open_page: OpenPage):
    page = await open_page(author, f"{author.demo_path}/map")
    await expect(page.get_by_test_id("map-summary")).to_have_text("12 scenes, 1 marked with a problem.")
    await page.get_by_label("Chapter").click()
    await page.get_by_role("option", name="Dawn").click()
    await expect(page.get_by_test_id("map-summary")).to_have_text("3 scenes.")
    titles = {node["title"] for node in await map_nodes(page)}
    assert titles == {"Confrontation on the Pier", "A New Keeper", "The Ship Sails Away"}


async def test_an_agents_edit_appears_on_the_open_map(author: Author, open_page: OpenPage):
    page = await open_page(author, f"{author.demo_path}/map")
    await expect(page.get_by_test_id("map-summary")).to_have_text("12 scenes, 1 marked with a problem.")
    nodes = await map_nodes(page)
    cellar_id = next(n["id"] for n in nodes if n["title"] == demo_story.DELIBERATE_PROBLEM_SCENE)
    lamp_room = author.scenes["The Lamp Room"].rsplit("/", 1)[1]

    async with agent(author.server.base_url, personal_token(author.server, author.username)) as me:
        scene = await me.call("romergo_get_scene", scene_id=lamp_room)
        choices = [
            {"label": c["label"], "target_scene_id": c["target_scene_id"]}
            for c in scene["untrusted_content"]["data"]["choices"]
        ]
        await me.call(
            "romergo_set_choices",
            scene_id=lamp_room,
            choices=[*choices, {"label": "Down to the cellar", "target_scene_id": cellar_id}],
        )

    await expect(page.get_by_test_id("map-summary")).to_have_text("12 scenes.", timeout=LIVE)
    cellar = next(n for n in await map_nodes(page) if n["id"] == cellar_id)
    assert not cellar["name"].startswith("⚠") and cellar["marks"] == []
