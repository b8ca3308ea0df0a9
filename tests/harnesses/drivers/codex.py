"""Codex CLI, set up as the README's *Connect your agent* block for it says: a home whose
`~/.codex/config.toml` points its model at the stand-in (speaking the OpenAI Responses API), then
the block's own `codex mcp add … --bearer-token-env-var ROMERGO_AGENT_TOKEN` line; run headless
with `codex exec` and no approval flags."""

from __future__ import annotations

import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tests.harnesses.drivers.common import (
    README_URL,
    Kind,
    Place,
    Run,
    harness_env,
    launcher,
    readme_command,
    run_process,
    version_of,
)
from tests.harnesses.model import openai_responses

HEADING = "Codex"
STAND_IN_KEY = "STAND_IN_API_KEY"
LONG_WAIT, SHORT_WAIT = 540, 50
"""The waits Romergo's join instructions tell an agent to ask for (romergo/channels/instructions.py)."""


@dataclass(frozen=True)
class Codex:
    home: Path
    env: dict[str, str]

    @classmethod
    async def set_up(cls, place: Place) -> Codex:
        home = place.folder / "home"
        (home / ".codex").mkdir(parents=True)
        (home / "work").mkdir()
        (home / ".codex" / "config.toml").write_text(f"""\
model = "{openai_responses.MODEL}"
model_provider = "stand-in"
check_for_update_on_startup = false

[model_providers.stand-in]
name = "Stand-in model"
base_url = "{place.model_url}/v1"
wire_api = "responses"
env_key = "{STAND_IN_KEY}"
""")
        codex = cls(
            home, harness_env(home, ROMERGO_AGENT_TOKEN=place.agent_token, **{STAND_IN_KEY: "stand-in"})
        )
        add = readme_command(HEADING, "codex mcp add", "ROMERGO_AGENT_TOKEN").replace(
            README_URL, place.mcp_url
        )
        added = await codex._codex(*shlex.split(add)[1:])
        assert added.returncode == 0, added
        return codex

    @property
    def config(self) -> Path:
        return self.home / ".codex" / "config.toml"

    @property
    def told_wait(self) -> int:
        """The wait its agent is told to ask for: Codex cuts a call at the server's
        tool_timeout_sec (60 s unless raised), so the long wait only when that is above it."""
        romergo = tomllib.loads(self.config.read_text()).get("mcp_servers", {}).get("romergo", {})
        return LONG_WAIT if romergo.get("tool_timeout_sec", 60) > LONG_WAIT else SHORT_WAIT

    async def run(self, prompt: str) -> Run:
        return await self._codex("exec", "--skip-git-repo-check", "--color", "never", prompt)

    async def version(self) -> str:
        return await version_of("codex", self.home)

    async def _codex(self, *args: str) -> Run:
        return await run_process(str(launcher("codex")), *args, cwd=self.home / "work", env=self.env)


CODEX = Kind(HEADING, openai_responses.routes, Codex.set_up)
