"""`/invitations/{secret}`: the owner makes a one-time link through the JSON API; someone signed
out opens it, signs in, comes back, sees the story, the inviter and the role, joins and lands on
the project; the used link then shows its refusal."""

from __future__ import annotations

import re

import httpx
from playwright.async_api import Browser, expect

from tests.browser.conftest import make_author
from tests.support.authors import DEMO_TITLE, PASSWORD, new_author
from tests.support.oauth import personal_token
from tests.support.server import RunningServer


async def test_someone_joins_by_a_link_and_the_used_link_is_refused(server: RunningServer, browser: Browser):
    owner = await make_author(server, browser, "inviting-owner")
    token = personal_token(server, owner.username, "--name", "Team script", "--scopes", "control")
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        made = await http.post(
            f"/api/v1/projects/{owner.demo_id}/invitations",
            json={"role": "editor"},
            headers={"authorization": f"Bearer {token}"},
        )
    assert made.status_code == 201, made.text
    link = made.json()["url"]
    assert link.startswith(f"{server.base_url}/invitations/")
    new_author(server, "joining-editor")

    context = await browser.new_context()
    context.set_default_timeout(10_000)
    page = await context.new_page()
    try:
        await page.goto(link)
        await expect(page).to_have_url(re.compile(r"/login\?next=/invitations/"))
        await page.get_by_label("Username").fill("joining-editor")
        await page.get_by_label("Password").fill(PASSWORD)
        await page.get_by_role("button", name="Sign in").click()
        await expect(page).to_have_url(link)
        await expect(page.get_by_test_id("story-title")).to_have_text(DEMO_TITLE)
        await expect(page.get_by_test_id("invited-as")).to_have_text(
            "inviting-owner invites you to work on this story as editor."
        )

        await page.get_by_role("button", name="Join story").click()

        await expect(page).to_have_url(owner.url(owner.demo_path))
        await expect(page.get_by_test_id("story-tree")).to_be_visible()
        await page.goto(link)
        await expect(page.get_by_role("alert")).to_have_text("This invitation was already used.")
        await expect(page.get_by_role("button", name="Join story")).to_have_count(0)
    finally:
        await context.close()


async def test_joining_needs_the_pages_form_token(server: RunningServer, browser: Browser):
    owner = await make_author(server, browser, "guarded-owner")
    token = personal_token(server, owner.username, "--name", "Guard script", "--scopes", "control")
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        made = await http.post(
            f"/api/v1/projects/{owner.demo_id}/invitations",
            json={"role": "viewer"},
            headers={"authorization": f"Bearer {token}"},
        )
    link = made.json()["url"]
    joiner = await make_author(server, browser, "guarded-joiner")
    context = await browser.new_context(storage_state=joiner.state)
    context.set_default_timeout(10_000)
    page = await context.new_page()
    try:
        forged = await page.request.post(link, form={"csrf": "forged"}, max_redirects=0)
        assert forged.status == 403
        await page.goto(link)
        await expect(page.get_by_role("button", name="Join story")).to_be_visible()
        await expect(page.get_by_test_id("invited-as")).to_have_text(
            "guarded-owner invites you to work on this story as viewer."
        )
    finally:
        await context.close()
