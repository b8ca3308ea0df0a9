"""`/settings/people`: an administrator adds an account and deactivates it, and that account's open
page is signed out at its next change; someone who is not an administrator finds no such page."""

from __future__ import annotations

import re

from playwright.async_api import Browser, Page, expect

from tests.browser.conftest import Author, OpenPage, sign_in
from tests.support.authors import PASSWORD, new_author
from tests.support.server import RunningServer


async def signed_in(browser: Browser, server: RunningServer, username: str) -> Page:
    context = await browser.new_context()
    context.set_default_timeout(10_000)
    page = await context.new_page()
    await sign_in(page, server, username, PASSWORD)
    return page


async def test_an_administrator_adds_an_account_and_deactivating_it_signs_it_out(
    author: Author, open_page: OpenPage, browser: Browser
):
    admin = await open_page(author, "/projects")
    await admin.get_by_role("link", name="People").click()
    await expect(admin).to_have_url(author.url("/settings/people"))
    await expect(admin.get_by_text("People", exact=True).first).to_be_visible()

    await admin.get_by_role("button", name="Add account").click()
    dialog = admin.get_by_role("dialog")
    await dialog.get_by_label("Name").fill("mia")
    await dialog.get_by_label("Password (optional)").fill(PASSWORD)
    await dialog.get_by_role("button", name="Add", exact=True).click()
    mia = admin.get_by_test_id("person-mia")
    await expect(mia.get_by_role("status")).to_have_text(["active"])  # no "administrator" badge
    await expect(mia.get_by_role("button", name="Make administrator")).to_be_visible()

    await mia.get_by_role("button", name="Sign-in link").click()
    link = admin.get_by_role("dialog").get_by_label("One-time link")
    await expect(link).to_have_value(re.compile(re.escape(author.server.base_url) + r"/login\?token=\S+$"))
    await admin.get_by_role("dialog").get_by_role("button", name="Close").click()

    member = await signed_in(browser, author.server, "mia")
    try:
        await mia.get_by_role("button", name="Deactivate").click()
        await admin.get_by_role("dialog").get_by_role("button", name="Deactivate").click()
        await expect(mia.get_by_role("status")).to_have_text(["deactivated"])
        await expect(mia.get_by_role("button", name="Reactivate")).to_be_visible()

        await member.get_by_label("New project title").fill("After the door closed")
        await member.get_by_role("button", name="Create project").click()
        await expect(member).to_have_url(re.compile(r"/login\?next="))
    finally:
        await member.context.close()


async def test_someone_who_is_not_an_administrator_finds_no_people_page(
    server: RunningServer, browser: Browser
):
    new_author(server, "noa")
    page = await signed_in(browser, server, "noa")
    try:
        await expect(page.get_by_role("link", name="Agents")).to_be_visible()
        await expect(page.get_by_role("link", name="People")).to_have_count(0)
        await page.goto(f"{server.base_url}/settings/people")
        await expect(page.get_by_test_id("not-found")).to_have_text("This page does not exist")
        await expect(page.get_by_role("button", name="Add account")).to_have_count(0)
    finally:
        await page.context.close()
