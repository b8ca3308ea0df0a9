"""opencode, unchanged from npm, runs the Builder loop against a real Romergo server, headless
(`opencode run "Join my Romergo Builder channel with the code …"`, as the README shows).

Its user is a cautious one: their `~/.config/opencode/opencode.json` makes opencode ask before any
tool runs (which `opencode run` answers by rejecting the call) and names their model, an
OpenAI-compatible provider, here the stand-in. Into it they paste the README's opencode block, with
a personal token read from ROMERGO_AGENT_TOKEN: that block alone must let Romergo's tools run.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harnesses.checks import (
    WAITED_AGAIN,
    assert_first_page_whole,
    assert_hostile_line_escaped,
    assert_loop_completed,
    assert_wait_clamped,
)
from tests.harnesses.conftest import Channel, HarnessStory, first_outline_page, harness, harness_env, stand_in
from tests.harnesses.model import openai_chat
from tests.harnesses.model.loop import Loop
from tests.harnesses.model.standin import Conversation, StandInModel
from tests.support.agents import OwnerApi
from tests.support.server import ROOT, RunningServer

README_URL = "http://127.0.0.1:8080/mcp"
HARNESS_TIMEOUT = 180
QUIET = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
}
"""No update check, no models.dev catalogue, no sharing, no language-server downloads: a machine
without internet must not wait on them."""


@pytest.fixture(scope="module")
def model() -> Iterator[StandInModel]:
    yield from stand_in(openai_chat.routes)


async def test_opencode_runs_the_loop_and_its_model_sees_what_romergo_sent(
    server: RunningServer,
    agent_token: str,
    owner: OwnerApi,
    channel: Channel,
    loop: Loop,
    story: HarnessStory,
    model: StandInModel,
    tmp_path: Path,
) -> None:
    with model.following(loop) as conversation:
        run = await asyncio.to_thread(_opencode, server, agent_token, model, channel, tmp_path)
    results = conversation.results
    try:
        assert run.returncode == 0, f"opencode exited with {run.returncode}"
        await assert_loop_completed(owner, channel, results)
        assert assert_wait_clamped(results) == 540  # opencode asks for progress: the long wait
        assert_hostile_line_escaped(results)
        assert_first_page_whole(
            results, await first_outline_page(server.base_url, agent_token, story.project_id)
        )
    except AssertionError:
        _show(run, conversation)
        raise
    print(f"model requests after the last timed-out wait: {requests_after_last_wait(conversation)}")


def readme_config(mcp_url: str) -> dict[str, Any]:
    """The README's opencode block (`~/.config/opencode/opencode.json`), for the server at `mcp_url`."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("**opencode**") :]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the README's opencode block is missing"
    assert README_URL in block.group(1), block.group(1)
    return json.loads(block.group(1).replace(README_URL, mcp_url))


def users_own_config(model: StandInModel) -> dict[str, Any]:
    """Every tool asks first; the model is an OpenAI-compatible provider, here the stand-in."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "permission": {"*": "ask"},
        "model": f"standin/{openai_chat.MODEL}",
        "provider": {
            "standin": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Stand-in",
                "options": {"baseURL": f"{model.base_url}/v1", "apiKey": "stand-in"},
                "models": {openai_chat.MODEL: {"name": "Stand-in"}},
            }
        },
    }


def merged(config: dict[str, Any], block: dict[str, Any]) -> dict[str, Any]:
    """`block` pasted into `config`: objects merge key by key, the block's values win."""
    both = {**config}
    for key, value in block.items():
        mine = both.get(key)
        both[key] = merged(mine, value) if isinstance(mine, dict) and isinstance(value, dict) else value
    return both


def requests_after_last_wait(conversation: Conversation) -> int:
    """Model requests (offering Romergo's tools) made after the last wait had timed out."""
    return sum(
        1
        for exchange in conversation.exchanges
        if exchange.offered and len(exchange.results) == WAITED_AGAIN + 1
    )


def _opencode(
    server: RunningServer, token: str, model: StandInModel, channel: Channel, tmp: Path
) -> subprocess.CompletedProcess[str]:
    home, work = tmp / "home", tmp / "work"
    config = home / ".config" / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True)
    work.mkdir()
    pasted = merged(users_own_config(model), readme_config(f"{server.base_url}/mcp"))
    config.write_text(json.dumps(pasted, indent=2))
    env = harness_env(home, ROMERGO_AGENT_TOKEN=token, **QUIET)
    command = [
        str(harness("opencode")),
        "run",
        "--print-logs",
        f"Join my Romergo Builder channel with the code {channel.code}.",
    ]
    try:
        return subprocess.run(
            command, cwd=work, env=env, capture_output=True, text=True, timeout=HARNESS_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired as stuck:
        # Killed: what it printed so far goes to the failure report with the exchanges.
        said = f"{_text(stuck.stderr)}\n[opencode had not exited after {HARNESS_TIMEOUT} s]"
        return subprocess.CompletedProcess(command, -1, _text(stuck.stdout), said)


def _text(output: bytes | str | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""


def _show(run: subprocess.CompletedProcess[str], conversation: Conversation) -> None:
    print("opencode stdout:", run.stdout[-20000:], sep="\n")
    print("opencode stderr:", run.stderr[-20000:], sep="\n")
    for number, exchange in enumerate(conversation.exchanges):
        shown = [result[:1500] for result in exchange.results]
        print(f"exchange {number}: offered {len(exchange.offered)} tools, results {shown}")
