"""opencode, set up for a cautious user: their `~/.config/opencode/opencode.json` makes opencode
ask before any tool runs (which `opencode run` answers by rejecting the call) and names their
model, an OpenAI-compatible provider, here the stand-in speaking Chat Completions. Into it they
paste the README's opencode block, with a personal token read from ROMERGO_AGENT_TOKEN: that block
alone must let Romergo's tools run. It runs headless with the README's `opencode run` line."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.harnesses.drivers.common import (
    README,
    README_URL,
    Kind,
    Place,
    Run,
    harness_env,
    launcher,
    merged,
    readme_blocks,
    run_process,
    version_of,
    with_prompt,
)
from tests.harnesses.model import openai_chat

HEADING = "opencode"
QUIET = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
}
"""No update check, no models.dev catalogue, no sharing, no language-server downloads: a machine
without internet must not wait on them."""


@dataclass(frozen=True)
class Opencode:
    home: Path
    workdir: Path
    env: dict[str, str]

    @classmethod
    async def set_up(cls, place: Place) -> Opencode:
        home, workdir = place.folder / "home", place.folder / "work"
        config = home / ".config" / "opencode" / "opencode.json"
        config.parent.mkdir(parents=True)
        workdir.mkdir()
        pasted = merged(users_own_config(place.model_url), readme_config(place.mcp_url))
        config.write_text(json.dumps(pasted, indent=2))
        return cls(home, workdir, harness_env(home, ROMERGO_AGENT_TOKEN=place.agent_token, **QUIET))

    @property
    def told_wait(self) -> int:
        return 540

    async def run(self, prompt: str) -> Run:
        """The README's headless line with `prompt` in place of its example's, printing opencode's
        logs for a failure's report."""
        command, subcommand, *words = with_prompt(readme_run_line(), prompt)
        return await run_process(
            str(launcher(command)), subcommand, "--print-logs", *words, cwd=self.workdir, env=self.env
        )

    async def version(self) -> str:
        return await version_of("opencode", self.home)


def readme_config(mcp_url: str) -> dict[str, Any]:
    """The README's opencode block (`~/.config/opencode/opencode.json`), for the server at `mcp_url`."""
    block = readme_blocks(HEADING, "json")[0]
    assert README_URL in block, block
    loaded: dict[str, Any] = json.loads(block.replace(README_URL, mcp_url))
    return loaded


def readme_run_line() -> str:
    """The README's headless opencode line (`opencode run "…"`, written in its text)."""
    section = README.read_text().split(f"**{HEADING}**", 1)[1].split("\n**", 1)[0]
    found = re.search(r"`(opencode run \"[^`]*\")`", section)
    assert found is not None, "the README's opencode block has no headless `opencode run` line"
    return found.group(1)


def users_own_config(model_url: str) -> dict[str, Any]:
    """Every tool asks first; the model is an OpenAI-compatible provider, here the stand-in."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "permission": {"*": "ask"},
        "model": f"standin/{openai_chat.MODEL}",
        "provider": {
            "standin": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Stand-in",
                "options": {"baseURL": f"{model_url}/v1", "apiKey": "stand-in"},
                "models": {openai_chat.MODEL: {"name": "Stand-in"}},
            }
        },
    }


OPENCODE = Kind(HEADING, openai_chat.routes, Opencode.set_up)
