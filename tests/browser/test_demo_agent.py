"""The built-in demo agent end to end: a separate process that connects like any outside agent,
driven from the panel with the six example commands; killed mid-command and restarted; outliving
a server restart; started from the panel at most once."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import Author, OpenPage, reload_after_restart
from tests.support.panel import card, end_channel, panel, select_in, send
from tests.support.server import ROOT, RunningServer, clean_env

CELLAR = "The Forgotten Cellar"
DEMO_NAME = "Romergo demo agent (scripted)"


def demo_processes(server: RunningServer) -> list[int]:
    """Demo agent processes working for this server (by their command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        is_demo = b"demo-agent" in command or b"demo_agent" in command  # the CLI, or `python -m demo_agent`
        if is_demo and f"127.0.0.1:{server.port}".encode() in b" ".join(command):
            found.append(int(entry.name))
    return found


class DemoProcess:
    """`romergo demo-agent` started by the test, as a user would in a terminal."""

    def __init__(self, server: RunningServer, code: str) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "app.py"),
                "demo-agent",
                "--url",
                server.base_url,
                "--code",
                code,
                "--data-dir",
                str(server.data_dir),
            ],
            env=clean_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.stdout.read() if self.process.stdout else ""


@pytest.fixture
def demo_agents() -> Iterator[list[DemoProcess]]:
    started: list[DemoProcess] = []
    yield started
    for number, process in enumerate(started, 1):
        # Shown by pytest only when the test failed: what each agent did and saw.
        print(f"--- demo agent {number} ---\n{process.stop()}")


async def start_demo_from_panel(page: Page) -> None:
    """Invite, then "Try the demo agent" (twice: it must not start two)."""
    await invite_keeping_dialog(page)
    dialog = page.get_by_role("dialog")
    await dialog.get_by_role("button", name="Try the demo agent").click()
    await dialog.get_by_role("button", name="Try the demo agent").click()
    await dialog.get_by_role("button", name="Done").click()
    await expect(panel(page).get_by_test_id("presence")).to_have_text(
        f"{DEMO_NAME} is listening", timeout=20_000
    )


async def invite_keeping_dialog(page: Page) -> None:
    invite_button = panel(page).get_by_role("button", name="Invite your agent")
    message = panel(page).get_by_label("Message your agent")
    await expect(invite_button.or_(message)).to_be_visible()
    if await message.is_visible():
        await end_channel(page)
    await invite_button.click()
    await page.get_by_role("dialog").get_by_role("button", name="Create channel").click()
    await expect(page.get_by_role("dialog").get_by_role("textbox", name="Join code")).to_have_value(
        re.compile("^rmg-")
    )


async def reply_of(page: Page, number: int, state: str = "done") -> str:
    await expect(page.get_by_test_id(f"command-{number}-state")).to_have_text(state, timeout=20_000)
    replies = card(page, number).locator('[data-kind="reply"], [data-kind="question"]')
    return await replies.last.inner_text()


@pytest.fixture
async def cellar(author: Author, open_page: OpenPage) -> Page:
    page = await open_page(author, author.scenes[CELLAR])
    if not demo_processes(author.server):
        await start_demo_from_panel(page)
    return page


async def test_try_the_demo_agent_starts_one_labelled_agent(author: Author, open_page: OpenPage):
    page = await open_page(author, author.scenes[CELLAR])
    await start_demo_from_panel(page)
    assert len(demo_processes(author.server)) == 1
    await expect(panel(page).get_by_text("Scripted demo agent: fixed rules, no AI model")).to_be_visible()


async def test_describe_the_scene(cellar: Page):
    number = await send_command(cellar, "Describe this scene")
    reply = await reply_of(cellar, number)
    assert CELLAR in reply and "line(s)" in reply
    await expect(card(cellar, number).get_by_text("No changes", exact=True)).to_be_visible()
    # The reply shows once: the summary does not repeat it.
    await expect(card(cellar, number).get_by_text(reply, exact=True)).to_have_count(1)


async def test_change_the_music_of_this_chapter(cellar: Page):
    number = await send_command(cellar, "Replace the music in this chapter")
    reply = await reply_of(cellar, number)
    track = re.search(r'now plays "([^"]+)"', reply)
    assert track, reply
    await expect(cellar.get_by_test_id("music-status")).to_contain_text(track.group(1))  # the editor, live
    await expect(card(cellar, number).get_by_text("Done", exact=True)).to_be_visible()
    await expect(
        card(cellar, number).get_by_role("link", name=re.compile(r"^Changed: Chapter "))
    ).to_be_visible()
    await expect(card(cellar, number).get_by_text("Romergo recorded 1 change")).to_be_visible()


async def test_put_a_different_background(cellar: Page):
    before = await cellar.get_by_test_id("background-status").inner_text()
    number = await send_command(cellar, "Put a different background on this scene")
    reply = await reply_of(cellar, number)
    image = re.search(r'now shows "([^"]+)"', reply)
    assert image, reply
    await expect(cellar.get_by_test_id("background-status")).to_contain_text(image.group(1))
    assert image.group(1) not in before


async def test_rewrite_the_selected_dialogue(cellar: Page):
    line = cellar.locator("[data-line-id]").first
    original = await line.inner_text()
    await select_in(line, original.split(",")[0])
    await expect(cellar.get_by_text("Selected “", exact=False).first).to_be_visible()
    number = await send_command(cellar, "Rewrite the selected dialogue")
    reply = await reply_of(cellar, number)
    assert reply.startswith("Scripted demo rewrite (deterministic, no AI)")
    await expect(line).not_to_have_text(original)
    new_text = re.search(r'now reads "(.*)"\.$', reply, re.DOTALL)
    assert new_text
    await expect(line).to_have_text(new_text.group(1))


async def test_check_the_transition_logic_names_the_deliberate_problem(cellar: Page):
    number = await send_command(cellar, "Check the transition logic")
    reply = await reply_of(cellar, number)
    assert f'Scene "{CELLAR}" cannot be reached from the start' in reply
    await expect(card(cellar, number).get_by_text("✗ Unreachable scene")).to_be_visible()
    # A long problem's link is cut at a word, its whole text on hover.
    link = card(cellar, number).get_by_role(
        "link", name=re.compile(r"^Scene .The Forgotten Cellar. cannot be [a-z ]+…$")
    )
    await expect(link).to_have_attribute("title", re.compile(r"cannot be reached from the start"))


async def test_explain_why_the_scene_does_not_work(cellar: Page):
    number = await send_command(cellar, "Why does this scene not work as expected?")
    reply = await reply_of(cellar, number)
    assert reply.startswith("Here is why this scene does not work as expected")
    assert "no choice leads to it" in reply and "Add a choice in another scene" in reply


async def test_anything_else_gets_a_question(cellar: Page):
    number = await send_command(cellar, "Make me a sandwich")
    question = await reply_of(cellar, number, state="waiting for your answer")
    assert question.startswith("I am Romergo's scripted demo agent")


async def confirming_demo(
    author: Author, open_page: OpenPage, demo_agents: list[DemoProcess]
) -> tuple[Page, str]:
    """The cellar with a fresh channel in "Confirm every change" and a demo agent listening in it."""
    page = await open_page(author, author.scenes[CELLAR])
    await invite_keeping_dialog(page)
    code = await page.get_by_role("dialog").get_by_role("textbox", name="Join code").input_value()
    await page.get_by_role("dialog").get_by_role("button", name="Done").click()
    await set_mode(page, "Confirm every change")
    demo_agents.append(DemoProcess(author.server, code))
    presence = panel(page).get_by_test_id("presence")
    await expect(presence).to_have_text(f"{DEMO_NAME} is listening", timeout=20_000)
    return page, code


async def test_killed_mid_command_the_agent_finishes_it_exactly_once(
    author: Author, open_page: OpenPage, demo_agents
):
    page, code = await confirming_demo(author, open_page, demo_agents)

    number = await send_command(page, "Replace the music in this chapter")
    shown = card(page, number)
    await expect(shown.get_by_role("button", name="Allow once")).to_be_visible(timeout=20_000)
    demo_agents[0].kill()  # in the middle: holding the command, waiting for the owner

    demo_agents.append(DemoProcess(author.server, code))
    await expect(shown.get_by_text("again (redelivered)")).to_be_visible(timeout=20_000)
    await shown.get_by_role("button", name="Allow once").click()
    # The owner's decision lands before the agent's answer is awaited, so a failure says which of
    # the two did not happen (a CI run once saw the card stay "needs your confirmation").
    await expect(shown.get_by_test_id("confirmation"), "the Allow once click was decided").to_have_count(0)
    reply = await reply_of(page, number)
    assert "now plays" in reply
    await expect(shown.get_by_text("Romergo recorded 1 change")).to_be_visible()
    assert (
        await shown.get_by_text("Needs confirmation:", exact=False).count() == 1
    )  # one prompt for both tries
    assert await shown.locator('[data-kind="reply"]').count() == 1


async def test_the_agent_carries_on_after_a_server_restart(author: Author, open_page: OpenPage, demo_agents):
    page = await open_page(author, author.scenes[CELLAR])
    await invite_keeping_dialog(page)
    code = await page.get_by_role("dialog").get_by_role("textbox", name="Join code").input_value()
    await page.get_by_role("dialog").get_by_role("button", name="Done").click()
    demo_agents.append(DemoProcess(author.server, code))
    presence = panel(page).get_by_test_id("presence")
    await expect(presence).to_have_text(f"{DEMO_NAME} is listening", timeout=20_000)

    author.server.restart()
    await reload_after_restart(page)
    await expect(panel(page).get_by_test_id("presence")).to_have_text(
        f"{DEMO_NAME} is listening", timeout=30_000
    )
    reply = await reply_of(page, await send_command(page, "Describe this scene"))
    assert CELLAR in reply


async def set_mode(page: Page, mode: str) -> None:
    await panel(page).get_by_role("button", name="Channel settings").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Confirmation mode").click()
    await page.get_by_role("option", name=mode).click()
    await dialog.get_by_role("button", name="Save").click()
    await expect(dialog).to_be_hidden()


async def send_command(page: Page, text: str) -> int:
    """Send from the panel; returns the new command's number once its card is shown."""
    # The composer is drawn once the panel has read the channel's history: count after that.
    await expect(panel(page).get_by_label("Message your agent")).to_be_visible()
    states = panel(page).locator('[data-testid^="command-"][data-testid$="-state"]')
    number = await states.count() + 1
    await send(page, text)
    await expect(card(page, number).get_by_text(text).first).to_be_visible()
    return number


async def test_explain_plays_the_scene_and_names_the_choice_its_state_hides(cellar: Page):
    # Over to the beacon inside the app (the panel and its channel stay): breadcrumb, then the scene.
    await cellar.get_by_role("link", name="The Keeper").first.click()
    await cellar.get_by_role("link", name="The Beacon").first.click()
    await expect(cellar.get_by_test_id("scene-title")).to_have_text("The Beacon")
    number = await send_command(cellar, "Explain why this scene does not work as expected")
    reply = await reply_of(cellar, number)
    assert 'The condition of the choice "Signal the ship" in scene "The Beacon"' in reply
    assert (
        "I played the story from this scene with the starting values (has_key = false, lens_mended = false): "
        '"Signal the ship" is hidden (it needs lens_mended).'
    ) in reply


async def test_the_confirmation_card_names_the_scene_and_the_background(
    author: Author, open_page: OpenPage, demo_agents
):
    page, _ = await confirming_demo(author, open_page, demo_agents)

    number = await send_command(page, "Put a different background on this scene")
    confirmation = card(page, number).get_by_test_id("confirmation")
    await expect(confirmation.get_by_text(f"Scene “{CELLAR}”", exact=True)).to_be_visible(timeout=20_000)
    await expect(confirmation.get_by_text(re.compile(r"^Background “[^”]+”$"))).to_be_visible()
    headline = confirmation.get_by_text(re.compile(rf"^Set the background of scene “{CELLAR}” to “[^”]+”$"))
    await expect(headline).to_be_visible()
    await confirmation.get_by_role("button", name="Allow once").click()
    assert "now shows" in await reply_of(page, number)


async def test_the_connect_snippets_fit_the_dialog_and_the_demo_command_has_its_path(
    author: Author, open_page: OpenPage
):
    page = await open_page(author, author.scenes[CELLAR])
    await invite_keeping_dialog(page)
    dialog = page.get_by_role("dialog")
    code = await dialog.get_by_role("textbox", name="Join code").input_value()
    # The demo agent's terminal command names this install's romergo, so it runs as shown.
    command = dialog.get_by_text(re.compile(r"/romergo demo-agent --url "))
    await expect(command).to_contain_text(f"--code {code}")
    shown = await command.inner_text()
    assert await asyncio.to_thread(os.path.isfile, shown.split(" demo-agent")[0]), shown

    await dialog.get_by_text("Connect your agent").click()
    claude = dialog.get_by_text(re.compile(r"^claude mcp add --transport http -s user romergo "))
    await expect(claude).to_be_visible()
    card_box = await dialog.locator(".q-card").first.bounding_box()
    snippet_box = await claude.bounding_box()
    assert card_box and snippet_box
    assert snippet_box["x"] + snippet_box["width"] <= card_box["x"] + card_box["width"] + 1  # no overflow
    # One copy button per snippet, and it copies exactly the snippet.
    copy = dialog.get_by_role("button", name="Copy snippet for Claude Code")
    await expect(copy).to_have_count(1)
    await expect(dialog.locator(".nicegui-code .q-btn:visible")).to_have_count(0)
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await copy.click()
    await expect(page.get_by_text("Copied", exact=True)).to_be_visible()
    assert await page.evaluate("navigator.clipboard.readText()") == (await claude.inner_text()).strip()
    await dialog.get_by_role("button", name="Done").click()


async def test_copy_buttons_work_over_plain_http_too(author: Author, open_page: OpenPage):
    """Outside a secure context (a team's server on plain HTTP) the Clipboard API does not exist:
    the button copies through a selected field instead, and never claims a copy that failed."""
    page = await open_page(author, "/projects")
    await page.add_init_script(INSECURE_ORIGIN)
    await page.goto(author.url(author.scenes[CELLAR]))
    assert await page.evaluate("window.isSecureContext") is False
    await invite_keeping_dialog(page)
    dialog = page.get_by_role("dialog")
    code = await dialog.get_by_role("textbox", name="Join code").input_value()
    await dialog.get_by_role("button", name="Copy code").click()
    await expect(page.get_by_text("Copied", exact=True)).to_be_visible()
    assert await page.evaluate("window.copiedByCommand") == [code]

    await page.evaluate("window.copyRefused = true")
    await dialog.get_by_role("button", name="Copy prompt").click()
    await expect(page.get_by_text("did not let Romergo copy", exact=False)).to_be_visible()
    await dialog.get_by_role("button", name="Done").click()


INSECURE_ORIGIN = """
Object.defineProperty(window, "isSecureContext", { get: () => false });
Object.defineProperty(navigator, "clipboard", { get: () => undefined });
window.copiedByCommand = [];
document.execCommand = (name) => {
  if (name !== "copy" || window.copyRefused) return false;
  window.copiedByCommand.push(document.activeElement.value);
  return true;
};
"""
