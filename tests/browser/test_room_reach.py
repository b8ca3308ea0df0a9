"""The room's reach and the proof of stopping, as the author meets them.

Both tests share the module's author: each opens its own channel and changes no story content.

The author invites the demo agent into chapters 2–3 only; the panel's header and the start prompt
say so, the outline marks chapter 1, and a command about chapter 1's music gets an answer that it
is out of the room's reach, with nothing changed. After "End channel", what another agent still
tries is refused and listed on the ended channel.
"""

from __future__ import annotations

import re

from playwright.async_api import Page, expect

from tests.browser.conftest import Author, OpenPage
from tests.browser.test_demo_agent import DEMO_NAME, reply_of, send_command
from tests.support.oauth import mcp_client, personal_token
from tests.support.panel import card, end_channel, invite, panel
from tests.support.tools import Agent

STORM_SCENE = "Arrival at the Harbor"  # chapter 1, "The Storm"


async def invite_to_chapters_two_and_three(page: Page) -> str:
    invite_button = panel(page).get_by_role("button", name="Invite your agent")
    message = panel(page).get_by_label("Message your agent")
    await expect(invite_button.or_(message)).to_be_visible()
    if await message.is_visible():  # a channel the other test left open
        await end_channel(page)
    await invite_button.click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_role("checkbox", name="Whole project").click()
    await dialog.get_by_role("checkbox", name="2. The Keeper").click()
    await dialog.get_by_role("checkbox", name="3. Dawn").click()
    await dialog.get_by_role("button", name="Create channel").click()
    code_field = dialog.get_by_role("textbox", name="Join code")
    await expect(code_field).to_have_value(re.compile(r"^rmg-"))
    prompt = await dialog.get_by_role("textbox", name="Start prompt").input_value()
    assert "The room covers: Chapters 2–3." in prompt
    return await code_field.input_value()


async def test_a_room_limited_to_chapters_says_so_and_keeps_the_agent_out(
    author: Author, open_page: OpenPage
):
    page = await open_page(author, author.scenes[STORM_SCENE])
    music_before = await page.get_by_test_id("music-status").inner_text()
    code = await invite_to_chapters_two_and_three(page)
    dialog = page.get_by_role("dialog")
    await dialog.get_by_role("button", name="Try the demo agent").click()
    await dialog.get_by_role("button", name="Done").click()
    await expect(panel(page).get_by_test_id("room-reach")).to_have_text(
        "Chapters 2–3, read + edit + media, no confirmations"
    )
    await expect(panel(page).get_by_test_id("presence")).to_have_text(
        f"{DEMO_NAME} is listening", timeout=20_000
    )

    number = await send_command(page, "Replace the music in this chapter")
    reply = await reply_of(page, number)
    assert "outside this room's reach" in reply and "changed nothing" in reply
    await expect(card(page, number).get_by_text("No changes", exact=True)).to_be_visible()
    await expect(card(page, number).get_by_text("Outside the room's reach.").first).to_be_visible()
    await expect(page.get_by_test_id("music-status")).to_have_text(music_before)

    outline = await open_page(author, author.demo_path)
    storm = outline.get_by_role("group", name="Chapter The Storm")
    await expect(storm.get_by_test_id("outside-room")).to_be_visible()
    await expect(
        outline.get_by_role("group", name="Chapter Dawn").get_by_test_id("outside-room")
    ).to_have_count(0)

    # Another agent of the author's joined too; after the end it still tries, and gets nothing.
    token = personal_token(author.server, author.username, "--name", "Late agent")
    async with mcp_client(author.server.base_url, token) as client:
        late = Agent(client)
        assert not (await late.call("romergo_join_builder_channel", code=code)).is_error
        storm_scene_id = author.scenes[STORM_SCENE].rsplit("/", 1)[1]
        outside = (await late.call("romergo_get_scene", scene_id=storm_scene_id)).content[0].text
        assert outside.startswith("[out_of_scope] ")
        assert STORM_SCENE not in outside and "ferry" not in outside and "Storm" not in outside
        await end_channel(page)
        for _ in range(3):
            refused = await late.call("romergo_get_project_outline", project_id=author.demo_id)
            assert refused.is_error and refused.content[0].text.startswith("[channel_ended] ")
    listed = panel(page).get_by_test_id("refused-after-end")
    await expect(listed).to_contain_text("After the end: 3 calls refused (romergo_get_project_outline")

    agents = await open_page(author, "/settings/agents")
    late_row = agents.get_by_test_id(re.compile("^connection-")).filter(has_text="Late agent")
    await expect(late_row.get_by_test_id("calls")).to_contain_text(
        re.compile(
            r"last accepted: romergo_join_builder_channel.*·\s*"
            r"last refused: romergo_get_project_outline.*\(channel_ended\)"
        )
    )


async def test_one_agent_is_removed_from_the_panel_and_the_other_stays(author: Author, open_page: OpenPage):
    page = await open_page(author, author.demo_path)
    code = await invite(page)
    tokens = [personal_token(author.server, author.username, "--name", name) for name in ("Ann", "Bob")]
    async with (
        mcp_client(author.server.base_url, tokens[0]) as first,
        mcp_client(author.server.base_url, tokens[1]) as second,
    ):
        ann, bob = Agent(first), Agent(second)
        for agent in (ann, bob):
            assert not (await agent.call("romergo_join_builder_channel", code=code)).is_error
        await panel(page).get_by_role("button", name="Channel settings").click()
        members = page.get_by_role("dialog").get_by_test_id("room-members")
        await expect(members).to_contain_text("Ann")
        await members.get_by_role("button", name="Remove Ann").click()
        await page.get_by_role("button", name="Remove", exact=True).click()
        await expect(members.get_by_role("button", name="Remove Ann")).to_have_count(0)
        await expect(panel(page)).to_contain_text("Ann was removed from the channel")

        refused = await ann.call("romergo_get_project_outline", project_id=author.demo_id)
        assert refused.is_error and refused.content[0].text.startswith("[channel_ended] ")
        assert not (await bob.call("romergo_get_project_outline", project_id=author.demo_id)).is_error
        again = await ann.call("romergo_join_builder_channel", code=code)
        assert again.is_error and again.content[0].text.startswith("[code_invalid] ")
    await expect(panel(page).get_by_test_id("refused-after-end")).to_contain_text(
        "Ann, after its removal: 1 call refused (romergo_get_project_outline"
    )
