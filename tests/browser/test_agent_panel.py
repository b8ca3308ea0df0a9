"""The agent panel in a real browser with a real agent (the MCP SDK client over HTTP): the whole
loop, from a selection and a typed command to the reply with its summary, across page changes,
reloads and a server restart; questions, cancel, ending, presence, and agent text as text."""

from __future__ import annotations

import asyncio
import re

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import Author, OpenPage, reload_after_restart
from tests.support.agents import Agent, ToolRefused, agent, data
from tests.support.oauth import personal_token
from tests.support.panel import card, invite, panel, select_in, send

SCENE = "Arrival at the Harbor"
SCROLLBAR = 20
"""What a vertical scrollbar may take from a page's width, in px."""


@pytest.fixture(scope="module")
def agent_token(server) -> str:
    return personal_token(server, "author", "--name", "Test agent")


async def joined(author: Author, token: str, code: str):
    """Returns (client context manager entered, channel_id, cursor)."""
    manager = agent(author.server.base_url, token)
    me: Agent = await manager.__aenter__()
    result = await me.call("romergo_join_builder_channel", code=code)
    return manager, me, result["channel_id"], result["cursor"]


async def test_the_whole_loop_from_a_selection_to_a_checked_reply(
    author: Author, open_page: OpenPage, agent_token
):
    page = await open_page(author, author.scenes[SCENE])
    code = await invite(page)
    manager, me, channel_id, cursor = await joined(author, agent_token, code)
    try:
        await expect(panel(page).get_by_test_id("presence")).to_contain_text("Test agent")
        first_line = page.locator("[data-line-id]").first
        await select_in(first_line, "ferry bumps")
        await expect(page.get_by_text("ferry bumps", exact=False).last).to_be_visible()
        waiting = asyncio.create_task(
            me.call(
                "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor, timeout_seconds=20
            )
        )
        # The server got the selection (debounced in the page) once the editor shows it back.
        await expect(page.get_by_text("Selected “ferry bumps”", exact=False)).to_be_visible()
        await send(page, "Rewrite the selected words")

        got = await asyncio.wait_for(waiting, 15)
        command = got["command"]
        context = data(command["context"])
        assert command["text"] == "Rewrite the selected words"
        scene_id = author.scenes[SCENE].rsplit("/", 1)[1]
        assert context["route"] == author.scenes[SCENE]
        assert (context["project_id"], context["scene_id"], context["surface"]) == (
            author.demo_id,
            scene_id,
            "scene",
        )
        selection = context["selection"]
        assert (selection["entity_type"], selection["text"]) == ("dialogue_line", "ferry bumps")
        line_id = selection["entity_id"]
        scene = data(await me.call("romergo_get_scene", scene_id=scene_id))
        line = next(item for item in scene["lines"] if item["id"] == line_id)
        assert line["text"][selection["start"] : selection["end"]] == "ferry bumps"

        command_id = command["command_id"]
        await me.call(
            "romergo_report_builder_event", command_id=command_id, kind="status", text="Rewriting two words."
        )
        new_text = line["text"].replace("ferry bumps", "old ferry knocks")
        await me.call("romergo_update_dialogue_line", line_id=line_id, text=new_text, command_id=command_id)
        summary = {
            "status": "success",
            "description": "Rewrote the selected words.",
            "changed_entities": [
                {"type": "dialogue_line", "id": line_id, "title": "Line 1", "url": author.scenes[SCENE]}
            ],
            "checks": [{"name": "Read back the line", "passed": True, "detail": "matches"}],
            "links": [{"title": "The Lighthouse Door", "url": author.scenes["The Lighthouse Door"]}],
        }
        await me.call(
            "romergo_report_builder_event",
            command_id=command_id,
            kind="reply",
            text="Done: it knocks now.",
            summary=summary,
        )

        shown = card(page, 1)
        for text in (
            "Rewrite the selected words",
            "Claimed by Test agent",
            "Rewriting two words.",
            "Finished romergo_update_dialogue_line (1 changed)",
            "Done: it knocks now.",
            "Done",
            "✓ Read back the line — matches",
            "Changed: Dialogue line Line 1",
            "Romergo recorded 1 change",
        ):
            await expect(shown.get_by_text(text, exact=False).first).to_be_visible()
        await expect(page.get_by_test_id("command-1-state")).to_have_text("done")
        # One line per tool call (get_scene, update_dialogue_line): "Running" became "Finished".
        await expect(shown.get_by_text("Running romergo_update_dialogue_line")).to_have_count(0)
        await expect(shown.get_by_test_id("steps")).to_contain_text("Steps (2 tool calls)")
        await expect(shown.get_by_test_id("summary").get_by_text("Done", exact=True)).to_be_visible()
        await expect(page.locator("[data-line-id]").first).to_contain_text(
            "old ferry knocks"
        )  # the editor, live

        # The summary's links open the entity inside Romergo.
        await shown.get_by_role("link", name="The Lighthouse Door").click()
        await expect(page).to_have_url(author.url(author.scenes["The Lighthouse Door"]))
        await expect(
            card(page, 1).get_by_text("Done: it knocks now.")
        ).to_be_visible()  # still there, no reload
        await page.go_back()
        await expect(page).to_have_url(author.url(author.scenes[SCENE]))
        await page.reload()
        await expect(card(page, 1).get_by_text("Done", exact=True)).to_be_visible()

        author.server.restart()
        await reload_after_restart(page)
        await expect(card(page, 1).get_by_text("Done: it knocks now.")).to_be_visible()
        await expect(card(page, 1).get_by_text("Claimed by Test agent")).to_be_visible()
    finally:
        await manager.__aexit__(None, None, None)


async def test_a_question_is_answered_inline_and_reaches_the_agent(
    author: Author, open_page: OpenPage, agent_token
):
    page = await open_page(author, author.demo_path)
    code = await invite(page)
    manager, me, channel_id, cursor = await joined(author, agent_token, code)
    try:
        await send(page, "Change the music")
        got = await me.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor, timeout_seconds=10
        )
        asked = got["command"]["command_id"]
        await me.call(
            "romergo_report_builder_event", command_id=asked, kind="question", text="Which chapter?"
        )

        question = card(page, 1)
        await expect(question.get_by_text("Which chapter?")).to_be_visible()
        await expect(page.get_by_test_id("command-1-state")).to_have_text("waiting for your answer")
        await question.get_by_label("Your answer").fill("The second one")
        await question.get_by_role("button", name="Answer").click()

        answer = await me.call(
            "romergo_wait_for_builder_command",
            channel_id=channel_id,
            cursor=got["cursor"],
            timeout_seconds=10,
        )
        assert (answer["command"]["text"], answer["command"]["in_reply_to"]) == ("The second one", asked)
        await expect(page.get_by_test_id("command-1-state")).to_have_text("answered")
        await expect(card(page, 2).get_by_text("Your answer")).to_be_visible()
    finally:
        await manager.__aexit__(None, None, None)


async def test_cancel_command_stops_the_agent(author: Author, open_page: OpenPage, agent_token):
    page = await open_page(author, author.demo_path)
    code = await invite(page)
    manager, me, channel_id, cursor = await joined(author, agent_token, code)
    try:
        await send(page, "Check the transitions")
        got = await me.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor, timeout_seconds=10
        )
        await expect(page.get_by_test_id("command-1-state")).to_have_text("claimed")
        await card(page, 1).get_by_role("button", name="Cancel command").click()
        await expect(page.get_by_test_id("command-1-state")).to_have_text("cancelled")
        code_seen = await me.refused(
            "romergo_report_builder_event",
            command_id=got["command"]["command_id"],
            kind="status",
            text="still going",
        )
        assert code_seen == "command_cancelled"
        # A cancelled command can be sent again.
        await card(page, 1).get_by_role("button", name="Retry").click()
        await expect(card(page, 2).get_by_text("Sent again")).to_be_visible()
    finally:
        await manager.__aexit__(None, None, None)


async def test_end_channel_stops_a_waiting_agent_at_once(author: Author, open_page: OpenPage, agent_token):
    page = await open_page(author, author.demo_path)
    code = await invite(page)
    manager, me, channel_id, cursor = await joined(author, agent_token, code)
    try:
        waiting = asyncio.create_task(
            me.call(
                "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor, timeout_seconds=40
            )
        )
        await expect(panel(page).get_by_test_id("presence")).to_have_text("Test agent is listening")
        await panel(page).get_by_role("button", name="Channel settings").click()
        await page.get_by_role("dialog").get_by_role("button", name="End channel").click()
        await page.get_by_role("button", name="End now").click()

        result = await asyncio.wait_for(waiting, 5)
        assert result["status"] == "channel_ended"
        await expect(panel(page).get_by_test_id("channel-ended")).to_be_visible()
        await expect(panel(page).get_by_text("Test agent joined")).to_be_visible()  # history stays
        await expect(panel(page).get_by_text("The channel has ended")).to_be_visible()
        # Said once: not again in the presence line or beside the invite button.
        await expect(
            panel(page).get_by_text(re.compile("channel (has )?ended", re.IGNORECASE))
        ).to_have_count(1)
        await expect(panel(page).get_by_role("button", name="Invite your agent")).to_be_visible()
    finally:
        await manager.__aexit__(None, None, None)


async def test_presence_flips_when_the_agent_stops_listening(
    author: Author, open_page: OpenPage, agent_token
):
    page = await open_page(author, author.demo_path)
    code = await invite(page)
    manager, me, channel_id, cursor = await joined(author, agent_token, code)
    presence = panel(page).get_by_test_id("presence")
    try:
        await me.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor, timeout_seconds=2
        )
        poll = asyncio.create_task(
            me.call(
                "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor, timeout_seconds=3
            )
        )
        await expect(presence).to_have_text("Test agent is listening")
        await poll  # the agent stops polling after this one
        # Its time to call again (5 s, romergo/channels/presence.py) keeps it listening a moment.
        await expect(presence).to_have_text("Test agent is listening")
        await expect(presence).to_have_text(
            re.compile(r"^Test agent is not listening since \d\d:\d\d UTC$"), timeout=15_000
        )
    finally:
        await manager.__aexit__(None, None, None)


async def test_agent_text_is_shown_as_text_never_as_html(author: Author, open_page: OpenPage, agent_token):
    page = await open_page(author, author.demo_path)
    alerts: list[str] = []
    page.on("dialog", lambda dialog: alerts.append(dialog.message))
    code = await invite(page)
    manager, me, channel_id, cursor = await joined(author, agent_token, code)
    hostile = "<img src=x onerror=alert(1)>"
    try:
        await send(page, "Say something")
        got = await me.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor, timeout_seconds=10
        )
        command_id = got["command"]["command_id"]
        summary = {
            "status": "no_changes",
            "description": hostile,
            "links": [{"title": "evil", "url": "javascript:alert(2)"}],
        }
        with pytest.raises(ToolRefused) as refused:  # a link that leaves Romergo never reaches the panel
            await me.call(
                "romergo_report_builder_event",
                command_id=command_id,
                kind="reply",
                text=hostile,
                summary=summary,
            )
        assert refused.value.code == "invalid_argument"
        summary["links"] = [{"title": hostile, "url": author.demo_path}]
        await me.call(
            "romergo_report_builder_event", command_id=command_id, kind="reply", text=hostile, summary=summary
        )
        shown = card(page, 1)
        await expect(shown.get_by_text(hostile).first).to_be_visible()
        assert await panel(page).locator("img").count() == 0
        link = shown.get_by_role("link", name=hostile)
        await expect(link).to_have_attribute("href", author.demo_path)  # the title stays text
        assert alerts == []
    finally:
        await manager.__aexit__(None, None, None)


async def test_allow_once_and_reject_in_the_panel_decide_a_waiting_tool_call(
    author: Author, open_page: OpenPage, agent_token
):
    page = await open_page(author, author.demo_path)
    await invite(page)
    await panel(page).get_by_role("button", name="Channel settings").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Confirmation mode").click()
    await page.get_by_role("option", name="Confirm every change").click()
    await dialog.get_by_role("button", name="Save").click()
    await expect(dialog).to_be_hidden()
    # The code was shown only at creation: a new one for this agent.
    await panel(page).get_by_role("button", name="Channel settings").click()
    await page.get_by_role("dialog").get_by_role("button", name="New code").click()
    code_field = page.get_by_role("dialog").get_by_role("textbox", name="Join code")
    await expect(code_field).to_have_value(re.compile("^rmg-"))
    code = await code_field.input_value()
    await page.get_by_role("dialog").get_by_role("button", name="Done").click()

    manager, me, channel_id, cursor = await joined(author, agent_token, code)
    try:
        await send(page, "Rename the chapters")
        got = await me.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor, timeout_seconds=10
        )
        chapter_path = author.chapters["The Storm"]
        chapter_id = chapter_path.rsplit("/", 1)[1]
        command_id = got["command"]["command_id"]

        allowed = asyncio.create_task(
            me.call(
                "romergo_update_chapter",
                chapter_id=chapter_id,
                title="The Great Storm",
                command_id=command_id,
            )
        )
        shown = card(page, 1)
        await expect(shown.get_by_text("Your agent asks to:")).to_be_visible()
        confirmation = shown.get_by_test_id("confirmation")
        # In names the owner knows; the tool and its raw arguments under Details.
        await expect(confirmation.get_by_text("Rename chapter “The Storm”", exact=True)).to_be_visible()
        await expect(confirmation.get_by_text("Chapter “The Storm”", exact=True)).to_be_visible()
        await expect(confirmation.get_by_text("Title: The Great Storm", exact=True)).to_be_visible()
        await confirmation.get_by_text("Details").click()
        await expect(confirmation.get_by_text("Tool: romergo_update_chapter")).to_be_visible()
        await expect(confirmation.get_by_text('"title": "The Great Storm"', exact=False)).to_be_visible()
        # The agent keeps talking while the owner decides: the button stays the same element,
        # so a click on its way cannot land on a button that was just redrawn away.
        allow = shown.get_by_role("button", name="Allow once")
        before = await allow.get_attribute("id")
        await me.call("romergo_report_builder_event", command_id=command_id, kind="status", text="Waiting")
        await expect(shown.get_by_text("Waiting", exact=True)).to_be_visible()
        assert await allow.get_attribute("id") == before
        await expect(card(page, 1).get_by_test_id("command-1-state")).to_have_text("needs your confirmation")
        await allow.click()
        result = await asyncio.wait_for(allowed, 10)
        assert data(result)["title"] == "The Great Storm"

        rejected = asyncio.create_task(
            me.call(
                "romergo_update_chapter",
                chapter_id=chapter_id,
                title="No Storm\u202e<b>at</b> All",
                command_id=command_id,
            )
        )
        await expect(shown.get_by_role("button", name="Reject")).to_be_visible()
        # The card shows the arguments with untrusted text escaped: no bidi override, no HTML;
        # so do the canonical arguments under Details.
        confirmation = shown.get_by_test_id("confirmation")
        await expect(
            confirmation.get_by_text("Title: No Storm\\u202e<b>at</b> All", exact=True)
        ).to_be_visible()
        await confirmation.get_by_text("Details").click()
        escaped = '"title": "No Storm\\u202e<b>at</b> All"'
        await expect(shown.get_by_text(escaped, exact=False)).to_be_visible()
        assert await panel(page).locator("b").count() == 0
        await shown.get_by_role("button", name="Reject").click()
        with pytest.raises(Exception, match=r"\[confirmation_rejected\]"):
            await asyncio.wait_for(rejected, 10)
        outline = data(await me.call("romergo_get_chapter", chapter_id=chapter_id))
        assert outline["title"] == "The Great Storm"
        await expect(shown.get_by_text("Allowed once")).to_be_visible()
        await expect(shown.get_by_text("Rejected")).to_be_visible()

        # A line has no title: the card quotes its speaker and first words, not its id.
        arrival = author.scenes["Arrival at the Harbor"].rsplit("/", 1)[1]
        lines = data(await me.call("romergo_get_scene", scene_id=arrival))["lines"]
        mara = next(line for line in lines if line["speaker"] == "Mara")
        changed = asyncio.create_task(
            me.call(
                "romergo_update_dialogue_line",
                line_id=mara["id"],
                text="So this is Saltreach.",
                command_id=command_id,
            )
        )
        confirmation = shown.get_by_test_id("confirmation")
        await expect(
            confirmation.get_by_text("Line “Mara: So this is Saltreach. Grandmother said the…”", exact=True)
        ).to_be_visible()
        await shown.get_by_role("button", name="Reject").click()
        with pytest.raises(Exception, match=r"\[confirmation_rejected\]"):
            await asyncio.wait_for(changed, 10)
    finally:
        await manager.__aexit__(None, None, None)


async def test_the_conversation_follows_the_newest_event_unless_the_author_scrolled_up(
    author: Author, open_page: OpenPage, agent_token
):
    page = await open_page(author, author.scenes[SCENE])
    code = await invite(page)
    manager, me, channel_id, cursor = await joined(author, agent_token, code)
    try:
        await send(page, "Tell me a long story")
        got = await me.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor, timeout_seconds=10
        )
        command_id = got["command"]["command_id"]
        for number in range(1, 13):  # more than the panel holds: it has to scroll
            await me.call(
                "romergo_report_builder_event",
                command_id=command_id,
                kind="status",
                text=f"Chapter {number} of the long story.\nIt goes on for a while.\nAnd on.",
            )
        newest = panel(page).get_by_text("Chapter 12 of the long story.", exact=False)
        await expect(newest).to_be_in_viewport()

        # The author scrolls up to read: new events no longer pull the view down, a marker says so.
        first = panel(page).get_by_text("Chapter 1 of the long story.", exact=False)
        await first.scroll_into_view_if_needed()
        await expect(first).to_be_in_viewport()
        await me.call(
            "romergo_report_builder_event",
            command_id=command_id,
            kind="reply",
            text="The end of it.",
            summary={"status": "no_changes", "description": "Told the story."},
        )
        marker = panel(page).get_by_test_id("new-activity")
        await expect(marker).to_be_visible()
        await expect(first).to_be_in_viewport()
        await marker.click()
        await expect(panel(page).get_by_text("The end of it.", exact=True)).to_be_in_viewport()
        await expect(marker).to_be_hidden()
    finally:
        await manager.__aexit__(None, None, None)


async def test_below_1024_px_the_panel_opens_over_the_page_only_when_asked(
    author: Author, open_page: OpenPage
):
    scene = author.scenes[SCENE]
    narrow = await open_page(author, scene, width=900)
    title = narrow.get_by_text(SCENE, exact=True).first
    await expect(title).to_be_visible()
    # The editor has the whole width; the panel waits behind the header's button.
    await expect(panel(narrow)).to_be_hidden()
    assert await room_for_the_page(narrow) >= 900 - SCROLLBAR
    await narrow.get_by_role("button", name="Agent panel").click()
    await expect(panel(narrow)).to_be_visible()
    await expect(
        panel(narrow)
        .get_by_role("button", name="Invite your agent")
        .or_(panel(narrow).get_by_label("Message your agent"))
    ).to_be_visible()
    # Over the page, not beside it: the page keeps its width, and a click beside the panel closes it.
    assert await room_for_the_page(narrow) >= 900 - SCROLLBAR
    await narrow.mouse.click(100, 450)
    await expect(panel(narrow)).to_be_hidden()

    # Wide enough, it is docked beside the page from the start.
    wide = await open_page(author, scene)
    await expect(panel(wide)).to_be_visible()
    assert 1280 - 400 - SCROLLBAR <= await room_for_the_page(wide) <= 1280 - 400


async def room_for_the_page(page: Page) -> int:
    """The width the page's content gets: the layout's width less what a docked drawer reserves."""
    return await page.locator(".q-page-container").evaluate(
        "el => Math.round(el.getBoundingClientRect().width - parseFloat(getComputedStyle(el).paddingRight))"
    )
