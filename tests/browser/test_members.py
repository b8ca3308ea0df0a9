"""`/projects/{id}/members`: the owner adds a second account as viewer, who then finds the story,
its members without controls and a note saying they are a viewer; the owner makes them an editor,
then removes them."""

from __future__ import annotations

from playwright.async_api import Browser, Page, expect

from tests.browser.conftest import Author, OpenPage
from tests.support.authors import new_author, sign_in_link
from tests.support.server import RunningServer


async def signed_in(browser: Browser, server: RunningServer, username: str) -> Page:
    context = await browser.new_context()
    context.set_default_timeout(10_000)
    page = await context.new_page()
    await page.goto(sign_in_link(server, username))
    return page


async def test_the_owner_adds_a_viewer_makes_them_an_editor_and_removes_them(
    author: Author, open_page: OpenPage, browser: Browser
):
    new_author(author.server, "milo")
    owner = await open_page(author, author.demo_path)
    await owner.get_by_role("navigation", name="Project").get_by_role("link", name="Members").click()
    await expect(owner).to_have_url(author.url(f"{author.demo_path}/members"))
    members = owner.get_by_role("list", name="Members")
    await expect(owner.get_by_test_id("member-author").get_by_test_id("member-role")).to_have_text("owner")

    await owner.get_by_label("Account name").fill("milo")
    await owner.get_by_label("Role", exact=True).click()
    await owner.get_by_role("option", name="viewer", exact=True).click()
    await owner.get_by_role("button", name="Add member").click()
    milo = owner.get_by_test_id("member-milo")
    await expect(milo.get_by_test_id("member-role")).to_have_text("viewer")
    await expect(members.get_by_role("listitem")).to_have_count(2)

    guest = await signed_in(browser, author.server, "milo")
    try:
        await guest.goto(author.url("/projects"))
        # Their own demo and the shared one, each by its own path.
        await expect(guest.locator(f'a[href="{author.demo_path}"]')).to_have_count(1)
        await guest.goto(author.url(f"{author.demo_path}/members"))
        await expect(guest.get_by_test_id("member-milo").get_by_test_id("member-role")).to_have_text("viewer")
        await expect(guest.get_by_role("list", name="Members").get_by_role("listitem")).to_have_count(2)
        await expect(guest.get_by_role("button", name="Add member")).to_have_count(0)
        await expect(guest.get_by_role("button", name="Remove")).to_have_count(0)
        await expect(guest.get_by_role("button", name="Hand over")).to_have_count(0)
        await guest.goto(author.url(author.demo_path))
        await expect(guest.get_by_test_id("your-role")).to_have_text("You are a viewer of this story")
    finally:
        await guest.context.close()

    await owner.get_by_label("Role of milo").click()
    await owner.get_by_role("option", name="editor", exact=True).click()
    await expect(milo.get_by_test_id("member-role")).to_have_text("editor")

    await milo.get_by_role("button", name="Remove").click()
    dialog = owner.get_by_role("dialog")
    await expect(dialog.get_by_text("Remove milo?")).to_be_visible()
    await dialog.get_by_role("button", name="Remove").click()
    await expect(milo).to_have_count(0)
    await expect(members.get_by_role("listitem")).to_have_count(1)


async def test_someone_who_is_not_a_member_finds_no_members_page(author: Author, browser: Browser):
    new_author(author.server, "noor")
    stranger = await signed_in(browser, author.server, "noor")
    try:
        await stranger.goto(author.url(f"{author.demo_path}/members"))
        await expect(stranger.get_by_test_id("not-found")).to_have_text("This project does not exist")
        await expect(stranger.get_by_role("list", name="Members")).to_have_count(0)
    finally:
        await stranger.context.close()
