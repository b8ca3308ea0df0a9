"""Codex CLI, unchanged from npm, runs the Builder loop against a real Romergo server: added with
the README's own `codex mcp add` line (a personal token read from ROMERGO_AGENT_TOKEN), run
headless with `codex exec` and no approval flags, its model replaced by the stand-in speaking the
OpenAI Responses API."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harnesses.checks import requests_after_last_wait
from tests.harnesses.conftest import Stage, stand_in
from tests.harnesses.drivers.codex import CODEX, HEADING, Codex
from tests.harnesses.drivers.common import README_URL, Place, readme_blocks
from tests.harnesses.model.loop import DONE
from tests.harnesses.model.standin import StandInModel


@pytest.fixture(scope="module")
def model() -> Iterator[StandInModel]:
    yield from stand_in(CODEX.routes)


async def test_codex_runs_the_whole_loop_and_shows_its_model_the_protected_text(
    stage: Stage, model: StandInModel, place: Place
):
    codex = await Codex.set_up(place)

    with model.following(stage.loop) as conversation:
        run = await codex.run(f"Join the Romergo channel with code {stage.channel.code}")
    results = conversation.results

    with run.shown_on_failure(conversation):
        assert run.returncode == 0
        assert DONE in run.stdout
        # Codex asks for progress, so it is served the nine-minute wait; it cuts a call at its own
        # tool_timeout_sec all the same (60 s unless raised), which the README's Codex block says.
        assert await stage.assert_model_saw_the_whole_loop(results) == 540
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
