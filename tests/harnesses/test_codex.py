"""Codex CLI, unchanged from npm, runs the Builder loop against a real Romergo server: added with
the README's own `codex mcp add` line (a personal token read from ROMERGO_AGENT_TOKEN), run
headless with `codex exec` and no approval flags, its model replaced by the stand-in speaking the
OpenAI Responses API."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harnesses.checks import (
    assert_first_page_whole,
    assert_hostile_line_escaped,
    assert_loop_completed,
    assert_wait_clamped,
    requests_after_last_wait,
)
from tests.harnesses.conftest import Channel, HarnessStory, first_outline_page, stand_in
from tests.harnesses.drivers.codex import CODEX, HEADING, Codex
from tests.harnesses.drivers.common import README_URL, Place, readme_blocks
from tests.harnesses.model.loop import DONE, Loop
from tests.harnesses.model.standin import StandInModel
from tests.support.agents import OwnerApi
from tests.support.server import RunningServer


@pytest.fixture(scope="module")
def model() -> Iterator[StandInModel]:
    yield from stand_in(CODEX.routes)


async def test_codex_runs_the_whole_loop_and_shows_its_model_the_protected_text(
    server: RunningServer,
    agent_token: str,
    owner: OwnerApi,
    channel: Channel,
    loop: Loop,
    story: HarnessStory,
    model: StandInModel,
    place: Place,
):
    codex = await Codex.set_up(place)

    with model.following(loop) as conversation:
        run = await codex.run(f"Join the Romergo channel with code {channel.code}")
    results = conversation.results

    with run.shown_on_failure(conversation):
        assert run.returncode == 0
        assert DONE in run.stdout
        await assert_loop_completed(owner, channel, results)
        # Codex asks for progress, so it is served the nine-minute wait; it cuts a call at its own
        # tool_timeout_sec all the same (60 s unless raised), which the README's Codex block says.
        assert assert_wait_clamped(results) == 540
        assert_hostile_line_escaped(results)
        assert_first_page_whole(
            results, await first_outline_page(server.base_url, agent_token, story.project_id)
        )
    print(f"model requests after the last timed-out wait: {requests_after_last_wait(conversation)}")


async def test_the_readme_add_line_writes_the_readmes_config_block(tmp_path: Path):
    codex = await Codex.set_up(Place(tmp_path, README_URL, "", "http://127.0.0.1:9"))

    written = tomllib.loads(codex.config.read_text())["mcp_servers"]["romergo"]
    (block,) = readme_blocks(HEADING, "toml")
    romergo = tomllib.loads(block)["mcp_servers"]["romergo"]
    assert written == romergo
    assert romergo["bearer_token_env_var"] == "ROMERGO_AGENT_TOKEN", (
        "the agent must not get the owner's variable"
    )
    # So the agent is told the short wait: Codex would cut the long one.
    assert codex.told_wait == 50
