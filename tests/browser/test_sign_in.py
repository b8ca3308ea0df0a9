"""Signing in: the printed one-time link, the password form, sign-out and session renewal."""

from __future__ import annotations

import re

import httpx
from playwright.async_api import BrowserContext, Page, expect

from romergo.access.accounts.service import SESSION_COOKIE
from tests.support.cli import romergo_here
from tests.support.server import RunningServer

DEMO_TITLE = "The Lighthouse Keeper's Secret"


async def session_cookie(context: BrowserContext) -> str | None:
    return next((c["value"] for c in await context.cookies() if c["name"] == SESSION_COOKIE), None)


async def test_the_printed_link_signs_in_once_and_lands_on_the_demo_project(
    server: RunningServer, page: Page, browser
):
    await page.goto(server.signin_url)

    await expect(page).to_have_url(re.compile(r"/projects/prj_[a-z0-9]+$"))
    await expect(page.get_by_test_id("project-title")).to_have_text(DEMO_TITLE)
    await expect(page.get_by_role("button", name="Sign out")).to_be_visible()

    # The same link a second time, from another browser: refused with a friendly page.
    other = await browser.new_context()
    second = await other.new_page()
    await second.goto(server.signin_url)
    await expect(second.get_by_role("alert")).to_have_text("This sign-in link cannot be used")
    await second.goto(f"{server.base_url}/projects")
    await expect(second).to_have_url(re.compile(r"/login\?next=/projects$"))
    await other.close()


async def test_a_made_up_link_is_refused(server: RunningServer, page: Page):
    await page.goto(f"{server.base_url}/login?token=not-a-real-token")
    await expect(page.get_by_role("alert")).to_have_text("This sign-in link cannot be used")
    await expect(page.get_by_role("link", name="Sign in with a password")).to_be_visible()
    # How to get a fresh link, with the command shown as code (never as literal backticks).
    help_text = page.get_by_test_id("link-refused-help")
    await expect(help_text.locator("code", has_text="romergo login-link")).to_be_visible()
    assert "`" not in await help_text.inner_text()


async def test_password_sign_in_renews_the_session_and_sign_out_ends_it(
    server: RunningServer, context: BrowserContext, page: Page, browser
):
    added = romergo_here("user", "add", "ada", data_dir=server.data_dir, stdin="correct horse battery\n")
    assert added.returncode == 0, added.stderr
    # A session id planted before sign-in (session fixation) must not survive it.
    await context.add_cookies(
        [{"name": SESSION_COOKIE, "value": "planted-by-someone", "url": server.base_url}]
    )

    await page.goto(f"{server.base_url}/login")
    await page.get_by_label("Username").fill("ada")
    await page.get_by_label("Password").fill("correct horse battery")
    await page.get_by_role("button", name="Sign in").click()

    await expect(page).to_have_url(f"{server.base_url}/projects")
    await expect(page.get_by_text("ada", exact=True)).to_be_visible()
    signed_in_cookie = await session_cookie(context)
    assert signed_in_cookie and signed_in_cookie != "planted-by-someone"

    await page.get_by_role("button", name="Sign out").click()
    await expect(page.get_by_role("status")).to_have_text("You are signed out.")
    assert await session_cookie(context) is None

    # The old cookie is dead on the server too, not only forgotten by this browser.
    replay = await browser.new_context()
    await replay.add_cookies([{"name": SESSION_COOKIE, "value": signed_in_cookie, "url": server.base_url}])
    replay_page = await replay.new_page()
    await replay_page.goto(f"{server.base_url}/projects")
    await expect(replay_page).to_have_url(re.compile(r"/login"))
    await replay.close()


async def test_a_wrong_password_shows_an_error_and_signs_nobody_in(
    server: RunningServer, context: BrowserContext, page: Page
):
    romergo_here("user", "add", "bea", data_dir=server.data_dir, stdin="correct horse battery\n")
    await page.goto(f"{server.base_url}/login")
    await page.get_by_label("Username").fill("bea")
    await page.get_by_label("Password").fill("not the password")
    await page.get_by_role("button", name="Sign in").click()

    await expect(page.get_by_role("alert")).to_have_text("Wrong username or password.")
    assert await session_cookie(context) is None


async def test_sign_in_from_another_site_is_refused(server: RunningServer):
    romergo_here("user", "add", "cy", data_dir=server.data_dir, stdin="correct horse battery\n")
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        form = (await client.get("/login")).text
        token = re.search(r'"name":"csrf","value":"([^"]+)"', form)
        assert token, "the sign-in page carries a form token"
        fields = {"username": "cy", "password": "correct horse battery", "csrf": token.group(1)}

        forged = await client.post("/login", data=fields, headers={"Origin": "http://evil.example"})
        no_token = await client.post("/login", data={**fields, "csrf": "1.forged"})
        genuine = await client.post("/login", data=fields, headers={"Origin": server.base_url})

    # A foreign Origin is stopped by the host guard before the form is even read (tests/security).
    assert forged.status_code == 403 and "set-cookie" not in forged.headers
    assert SESSION_COOKIE not in forged.cookies
    assert no_token.headers["location"].startswith("/login?error=expired")
    assert genuine.status_code == 303 and genuine.headers["location"] == "/projects"
    assert SESSION_COOKIE in genuine.cookies


async def test_sign_out_needs_its_form_token(server: RunningServer):
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        refused = await client.post("/logout", data={"csrf": "guess"})
    assert refused.status_code == 403
