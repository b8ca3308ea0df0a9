"""Codex CLI, unchanged from npm, runs the Builder loop against a real Romergo server: added with
the README's own `codex mcp add` line (a personal token read from ROMERGO_AGENT_TOKEN), run
headless with `codex exec` and no approval flags, its model replaced by the stand-in speaking the
OpenAI Responses API."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.harnesses.checks import (
    WAITED_AGAIN,
    assert_first_page_whole,
    assert_hostile_line_escaped,
    assert_loop_completed,
    assert_wait_clamped,
)
from tests.harnesses.conftest import Channel, HarnessStory, first_outline_page, harness, harness_env, stand_in
from tests.harnesses.model import openai_responses
from tests.harnesses.model.loop import DONE, Loop
from tests.harnesses.model.standin import Conversation, StandInModel
from tests.support.agents import OwnerApi
from tests.support.server import RunningServer

README = Path(__file__).parents[2] / "README.md"
README_URL = "http://127.0.0.1:8080/mcp"
RUN_TIMEOUT = 180
STAND_IN_KEY = "STAND_IN_API_KEY"


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture(scope="module")
def model() -> Iterator[StandInModel]:
    yield from stand_in(openai_responses.routes)


async def test_codex_runs_the_whole_loop_and_shows_its_model_the_protected_text(
    server: RunningServer,
    agent_token: str,
    owner: OwnerApi,
    channel: Channel,
    loop: Loop,
    story: HarnessStory,
    model: StandInModel,
    tmp_path: Path,
):
    home = _home_with_the_model(tmp_path, model.base_url)
    await _run_the_readme_add_line(home, f"{server.base_url}/mcp")

    with model.following(loop) as conversation:
        run = await _codex(
            home, "exec", "--skip-git-repo-check", "--color", "never", _prompt(channel), token=agent_token
        )
    results = conversation.results

    try:
        assert run.returncode == 0
        assert DONE in run.stdout
        await assert_loop_completed(owner, channel, results)
        # Codex asks for progress, so it is served the nine-minute wait; it cuts a call at its own
        # tool_timeout_sec all the same (60 s unless raised), which the README's Codex block says.
        assert assert_wait_clamped(results) == 540
        assert_hostile_line_escaped(results)
        first_page = await first_outline_page(server.base_url, agent_token, story.project_id)
        assert_first_page_whole(results, first_page)
    except AssertionError:
        print(_transcript(run, conversation))
        raise
    print(f"model requests after the last timed-out wait: {_requests_after_last_wait(conversation)}")


async def test_the_readme_add_line_writes_the_readmes_config_block(tmp_path: Path):
    home = _home_with_the_model(tmp_path, "http://127.0.0.1:9")
    await _run_the_readme_add_line(home, README_URL)

    written = tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]["romergo"]
    block = tomllib.loads(_readme_block("toml"))["mcp_servers"]["romergo"]
    assert written == block
    assert block["bearer_token_env_var"] == "ROMERGO_AGENT_TOKEN", (
        "the agent must not get the owner's variable"
    )


def _home_with_the_model(tmp_path: Path, model_url: str) -> Path:
    """A home whose ~/.codex/config.toml points Codex's model at the stand-in, nothing more."""
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / "work").mkdir()
    (home / ".codex" / "config.toml").write_text(f"""\
model = "{openai_responses.MODEL}"
model_provider = "stand-in"
check_for_update_on_startup = false

[model_providers.stand-in]
name = "Stand-in model"
base_url = "{model_url}/v1"
wire_api = "responses"
env_key = "{STAND_IN_KEY}"
""")
    return home


async def _run_the_readme_add_line(home: Path, mcp_url: str) -> None:
    """The README's `codex mcp add ... --bearer-token-env-var` line as it stands, with `mcp_url`."""
    lines = [line for line in _readme_block("bash").splitlines() if line.startswith("codex mcp add")]
    assert len(lines) == 1, lines
    command = shlex.split(lines[0].replace(README_URL, mcp_url))
    added = await _codex(home, *command[1:])
    assert added.returncode == 0, added


def _prompt(channel: Channel) -> str:
    return f"Join the Romergo channel with code {channel.code}"


async def _codex(home: Path, *args: str, token: str = "") -> Run:
    """Codex with `args`, as a user runs it unattended, waited on until it exits."""
    env = harness_env(home, ROMERGO_AGENT_TOKEN=token, **{STAND_IN_KEY: "stand-in"})
    process = await asyncio.create_subprocess_exec(
        str(harness("codex")),
        *args,
        cwd=home / "work",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), RUN_TIMEOUT)
    except TimeoutError:
        process.kill()
        stdout, stderr = await process.communicate()
    assert process.returncode is not None
    return Run(process.returncode, stdout.decode(errors="replace"), stderr.decode(errors="replace"))


def _readme_block(language: str) -> str:
    """The README's Codex block in `language` for a personal token."""
    codex = README.read_text().split("**Codex**", 1)[1].split("**Gemini CLI**", 1)[0]
    personal = codex.split("With a personal token", 1)[1]
    found = re.search(rf"```{language}\n(.*?)```", personal, re.DOTALL)
    assert found, f"README.md's Codex section has no {language} block for a personal token"
    return found.group(1)


def _requests_after_last_wait(conversation: Conversation) -> int:
    """Model requests carrying the last wait's timed-out result as their newest tool result."""
    return sum(1 for exchange in conversation.exchanges if len(exchange.results) == WAITED_AGAIN + 1)


def _transcript(run: Run, conversation: Conversation) -> str:
    exchanges = [
        {"offered": len(exchange.offered), "results": [result[:3000] for result in exchange.results]}
        for exchange in conversation.exchanges
    ]
    return (
        f"codex exited {run.returncode}\n--- stdout\n{run.stdout[-5000:]}\n--- stderr\n{run.stderr[-10000:]}"
        f"\n--- exchanges\n{json.dumps(exchanges, indent=1, ensure_ascii=False)[-30000:]}"
    )
