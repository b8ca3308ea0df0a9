"""Review and undo in a real browser with a real agent: the changes under a command as a word
diff, "Undo this command" reverting the scene live in another tab, and the redo."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from tests.browser.conftest import Author, OpenPage
from tests.browser.scribe import command_from_the_panel
from tests.support.agents import agent, data
from tests.support.oauth import personal_token
from tests.support.panel import card, panel

SCENE = "The Beacon"
OLD_LINE = "Let them see it, whoever they are."
NEW_LINE = "Let every ship see it."


@pytest.fixture
def author(own_author: Author) -> Author:
    """Undo changes the story: each test gets a demo of its own."""
    return own_author


async def carry_out(author: Author, page, text: str):
    """An agent joins from the panel, takes `text`, rewrites line 2 and renames the scene, replies."""
    token = personal_token(author.server, author.username, "--name", "Reviewer")
    async with agent(author.server.base_url, token) as me:
        command_id = await command_from_the_panel(page, me, text)
        scene_id = author.scenes[SCENE].rsplit("/", 1)[1]
        scene = data(await me.call("romergo_get_scene", scene_id=scene_id))
        line = next(item for item in scene["lines"] if item["text"] == OLD_LINE)
        await me.call(
            "romergo_update_dialogue_line", line_id=line["id"], text=NEW_LINE, command_id=command_id
        )
        await me.call("romergo_update_scene", scene_id=scene_id, title="The Signal", command_id=command_id)
        await me.call(
            "romergo_report_builder_event",
            command_id=command_id,
            kind="reply",
            text="Tightened the line and renamed the scene.",
            summary={
                "status": "success",
                "changed_entities": [{"type": "scene", "id": scene_id, "title": "The Signal"}],
            },
        )
    await expect(card(page, 1).get_by_text("Romergo recorded 2 changes")).to_be_visible()


async def rename_scene(page, title: str) -> None:
    await page.get_by_role("button", name="Rename the scene").click()
    await page.get_by_role("dialog").get_by_role("textbox").fill(title)
    await page.get_by_role("dialog").get_by_role("button", name="Save").click()
    await expect(page.get_by_test_id("scene-title")).to_have_text(title)


async def test_the_changes_under_a_command_show_the_word_diff(author: Author, open_page: OpenPage):
    page = await open_page(author, author.scenes[SCENE])
    await carry_out(author, page, "Tighten the beacon line")

    await card(page, 1).get_by_text("Romergo recorded 2 changes").click()

    changes = card(page, 1).get_by_test_id("change")
    await expect(changes).to_have_count(2)
    line = changes.filter(has=page.get_by_test_id("word-diff"))
    diff = line.get_by_test_id("word-diff")
    await expect(diff.locator("del")).to_have_text(["them", ", whoever they are"])
    await expect(diff.locator("ins")).to_have_text(["every ship"])
    await expect(diff).to_have_text("Let themevery ship see it, whoever they are.")
    scene = changes.filter(has_text="Title: The Beacon → The Signal")
    await expect(scene.get_by_role("link", name="Scene “The Signal”")).to_have_attribute(
        "href", author.scenes[SCENE]
    )
    # the agent's own summary stays beside it (it named the scene, which covers its line)
    await expect(card(page, 1).get_by_test_id("summary")).to_contain_text("Changed: Scene The Signal")
    await expect(card(page, 1).get_by_test_id("mismatch")).to_have_count(0)


async def test_undo_this_command_reverts_the_scene_live_in_another_tab(author: Author, open_page: OpenPage):
    page = await open_page(author, author.scenes[SCENE])
    await carry_out(author, page, "Tighten the beacon line")
    other = await open_page(author, author.scenes[SCENE])
    await expect(other.get_by_test_id("scene-title")).to_have_text("The Signal")
    await other.evaluate("window.__romergoNoReload = true")

    await card(page, 1).get_by_role("button", name="Undo this command").click()

    await expect(other.get_by_test_id("scene-title")).to_have_text(SCENE)
    await expect(other.get_by_test_id("line-text").filter(has_text=OLD_LINE)).to_have_count(1)
    assert await other.evaluate("window.__romergoNoReload === true")
    await expect(page.get_by_test_id("command-1-state")).to_have_text("done · undone")
    await expect(card(page, 1).get_by_text("Undone by")).to_be_visible()
    # the other tab's panel follows the channel too: it offers the redo
    await expect(card(other, 1).get_by_role("button", name="Redo")).to_be_visible()

    await card(page, 1).get_by_role("button", name="Redo").click()

    await expect(other.get_by_test_id("scene-title")).to_have_text("The Signal")
    await expect(other.get_by_test_id("line-text").filter(has_text=NEW_LINE)).to_have_count(1)
    await expect(card(page, 1).get_by_role("button", name="Undo this command")).to_be_visible()


async def test_a_later_edit_makes_undo_ask_first(author: Author, open_page: OpenPage):
    page = await open_page(author, author.scenes[SCENE])
    await carry_out(author, page, "Tighten the beacon line")
    await rename_scene(page, "My own title")

    await card(page, 1).get_by_role("button", name="Undo this command").click()

    dialog = page.get_by_role("dialog")
    await expect(dialog).to_contain_text("Changed since this command: scene “My own title” by you")
    await dialog.get_by_role("button", name="Cancel").click()
    await expect(page.get_by_test_id("scene-title")).to_have_text("My own title")
    await expect(page.get_by_test_id("line-text").filter(has_text=NEW_LINE)).to_have_count(1)

    await card(page, 1).get_by_role("button", name="Undo this command").click()
    await page.get_by_role("dialog").get_by_role("button", name="Undo anyway").click()

    await expect(page.get_by_test_id("scene-title")).to_have_text(SCENE)
    await expect(page.get_by_test_id("line-text").filter(has_text=OLD_LINE)).to_have_count(1)
    await expect(panel(page).get_by_role("button", name="Redo")).to_be_visible()


async def test_the_history_page_filtered_by_agent_and_a_scenes_own_history(
    author: Author, open_page: OpenPage
):
    page = await open_page(author, author.scenes[SCENE])
    await carry_out(author, page, "Tighten the beacon line")
    await rename_scene(page, "My own title")

    await page.get_by_role("link", name="Scene history").click()
    entries = page.get_by_test_id("revision")
    await expect(page.get_by_text("History of “My own title”")).to_be_visible()
    await expect(entries.first.get_by_test_id("who")).to_have_text("you")
    who = await entries.get_by_test_id("who").all_text_contents()
    assert who[:3] == [
        "you",
        "Reviewer (agent) · romergo_update_scene",
        "Reviewer (agent) · romergo_update_dialogue_line",
    ]
    assert set(who[3:]) == {"Romergo"}  # the demo as seeded: the scene and its lines
    await expect(entries.nth(2).get_by_test_id("word-diff").locator("ins")).to_have_text(["every ship"])

    await page.goto(author.url(f"{author.demo_path}/history"))
    await page.get_by_label("Agent", exact=True).click()
    await page.get_by_role("option", name="Reviewer").click()

    await expect(entries.get_by_test_id("who")).to_have_text(
        ["Reviewer (agent) · romergo_update_scene", "Reviewer (agent) · romergo_update_dialogue_line"]
    )
    await expect(entries.first.get_by_role("link", name="#1 “Tighten the beacon line”")).to_be_visible()
    await expect(entries.first.get_by_test_id("field-change")).to_have_text("Title: The Beacon → The Signal")
    await entries.first.get_by_role("button", name="Show its card").click()
    await expect(card(page, 1)).to_be_in_viewport()
    await expect(card(page, 1)).to_have_class(re.compile("ring-primary"))

    await card(page, 1).get_by_role("button", name="Undo this command").click()
    await page.get_by_role("dialog").get_by_role("button", name="Undo anyway").click()
    await entries.first.get_by_role("link", name="#1 “Tighten the beacon line”").click()
    await expect(entries.get_by_test_id("who")).to_have_text(
        [
            "you · undo of command #1",
            "you · undo of command #1",
            "Reviewer (agent) · romergo_update_scene",
            "Reviewer (agent) · romergo_update_dialogue_line",
        ]
    )
