"""Driving the agent panel in a browser: invite an agent, select text, send commands."""

from __future__ import annotations

import re

from playwright.async_api import Locator, Page, expect


def panel(page: Page) -> Locator:
    return page.get_by_test_id("agent-panel")


async def invite(page: Page, **permissions: bool) -> str:
    """Open a channel from the panel (with these permission boxes set) and return the join code.

    A channel an earlier test left open is ended first, through the panel as the author would."""
    invite_button = panel(page).get_by_role("button", name="Invite your agent")
    message = panel(page).get_by_label("Message your agent")
    await expect(invite_button.or_(message)).to_be_visible()
    if await message.is_visible():
        await end_channel(page)
    await invite_button.click()
    dialog = page.get_by_role("dialog")
    for name, wanted in permissions.items():
        box = dialog.get_by_role("checkbox", name=name.capitalize())
        if await box.is_checked() != wanted:
            await box.click()
    await dialog.get_by_role("button", name="Create channel").click()
    code_field = dialog.get_by_role("textbox", name="Join code")
    await expect(code_field).to_have_value(re.compile(r"^rmg-"))
    code = await code_field.input_value()
    await dialog.get_by_role("button", name="Done").click()
    await expect(panel(page).get_by_label("Message your agent")).to_be_visible()
    return code


async def send(page: Page, text: str) -> None:
    box = panel(page).get_by_label("Message your agent")
    await box.fill(text)
    await panel(page).get_by_role("button", name="Send").click()
    await expect(box).to_have_value("")


async def select_in(line: Locator, words: str) -> None:
    """Select `words` inside a dialogue line's text, as a mouse drag would."""
    await line.evaluate(
        """(element, words) => {
            const first = element.firstChild;
            const text = first && first.nodeType === 3 ? first : element;
            const at = element.textContent.indexOf(words);
            const range = document.createRange();
            range.setStart(text, at);
            range.setEnd(text, at + words.length);
            const selection = document.getSelection();
            selection.removeAllRanges();
            selection.addRange(range);
        }""",
        words,
    )


def card(page: Page, number: int) -> Locator:
    return panel(page).get_by_test_id(f"command-{number}")


async def end_channel(page: Page) -> None:
    await panel(page).get_by_role("button", name="Channel settings").click()
    await page.get_by_role("dialog").get_by_role("button", name="End channel").click()
    await page.get_by_role("button", name="End now").click()
    await expect(panel(page).get_by_test_id("channel-ended")).to_be_visible()
