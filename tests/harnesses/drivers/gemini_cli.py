"""Gemini CLI, set up as the README's *Connect your agent* block for it says, with a personal token:
the block's own `gemini mcp add … --trust … --header …` line runs in a shell holding
`ROMERGO_AGENT_TOKEN`, the folder it works in is trusted as the block says, the block's settings
for a listening agent (loop detection off) are in `~/.gemini/settings.json`, and the block's
`gemini -p` line runs it headless. Its model is the stand-in speaking the Gemini API."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.harnesses.drivers.common import (
    README_URL,
    Kind,
    Place,
    Run,
    harness_env,
    merged,
    readme_blocks,
    readme_command,
    run_process,
    version_of,
    with_prompt,
)
from tests.harnesses.model import gemini

HEADING = "Gemini CLI"
MODEL_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "model": {"name": gemini.MODEL_VERSION},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}
"""The stand-in as the model: a Gemini API key user (its base URL from GOOGLE_GEMINI_BASE_URL; left
to itself, Gemini CLI 0.61.0 takes that variable for a gateway, which its headless mode refuses as
"Invalid auth method selected.") with a model chosen (the default "auto" first asks a classifier
model for a JSON verdict, which a stand-in answering text makes it retry for a minute). No usage
statistics, telemetry or update checks: the machine has no internet to send them to."""


@dataclass(frozen=True)
class GeminiCli:
    home: Path
    workdir: Path
    env: dict[str, str]

    @classmethod
    async def set_up(cls, place: Place) -> GeminiCli:
        home, workdir = place.folder / "home", place.folder / "story-work"
        (home / ".gemini").mkdir(parents=True)
        workdir.mkdir()
        settings = merged(MODEL_SETTINGS, readme_settings())
        (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
        # The *Trust folder* choice the README asks for, as Gemini CLI keeps it.
        (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(workdir): "TRUST_FOLDER"}))
        env = harness_env(
            home,
            ROMERGO_AGENT_TOKEN=place.agent_token,
            GEMINI_API_KEY="stand-in",
            GOOGLE_GEMINI_BASE_URL=place.model_url,
        )
        add = readme_command(HEADING, "gemini mcp add", "ROMERGO_AGENT_TOKEN").replace(
            README_URL, place.mcp_url
        )
        added = await run_process("bash", "-c", add, cwd=home, env=env)
        assert added.returncode == 0, added
        return cls(home, workdir, env)

    @property
    def told_wait(self) -> int:
        return 540

    async def run(self, prompt: str) -> Run:
        """The README's headless line, with `prompt` in place of its example's."""
        words = with_prompt(readme_command(HEADING, "gemini -p"), prompt)
        return await run_process(*words, cwd=self.workdir, env=self.env)

    async def version(self) -> str:
        return await version_of("gemini", self.home)


def readme_settings() -> dict[str, Any]:
    """The settings the README's Gemini CLI block gives for `~/.gemini/settings.json`."""
    blocks = [json.loads(block) for block in readme_blocks(HEADING, "json")]
    assert len(blocks) == 1, f"the README's Gemini CLI block has no settings: {blocks}"
    return blocks[0]


GEMINI_CLI = Kind(HEADING, gemini.routes, GeminiCli.set_up)
