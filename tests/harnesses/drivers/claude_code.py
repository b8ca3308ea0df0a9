"""Claude Code, set up as the README's *Connect your agent* block for it says: the block's own
`claude mcp add … -s user … --header` line for a personal token, run by the shell in the home
folder (the loop runs in another folder, which only a server added for the user reaches), and the
block's headless `claude -p … --allowedTools mcp__romergo` line. Its model is the stand-in speaking
the Anthropic Messages API."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.harnesses.drivers.common import (
    README_URL,
    Kind,
    Place,
    Run,
    harness_env,
    readme_command,
    run_process,
    version_of,
    with_prompt,
)
from tests.harnesses.model import anthropic

HEADING = "Claude Code"
QUIET = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}
"""Nothing sent anywhere but to the stand-in: the machine has no internet."""


@dataclass(frozen=True)
class ClaudeCode:
    home: Path
    workdir: Path
    env: dict[str, str]

    @classmethod
    async def set_up(cls, place: Place) -> ClaudeCode:
        home, workdir = place.folder / "home", place.folder / "story-work"
        home.mkdir(parents=True)
        workdir.mkdir()
        env = harness_env(
            home,
            ROMERGO_AGENT_TOKEN=place.agent_token,
            ANTHROPIC_BASE_URL=place.model_url,
            ANTHROPIC_API_KEY="stand-in-key",
            **QUIET,
        )
        claude = cls(home, workdir, env)
        add = readme_command(HEADING, "claude mcp add", "ROMERGO_AGENT_TOKEN").replace(
            README_URL, place.mcp_url
        )
        added = await run_process("bash", "-c", add, cwd=home, env=env)
        assert added.returncode == 0, f"{add}\n{added.stdout}\n{added.stderr}"
        return claude

    @property
    def told_wait(self) -> int:
        return 540

    async def run(self, prompt: str) -> Run:
        """The README's headless line, with `prompt` in place of its example's."""
        words = with_prompt(readme_command(HEADING, "claude -p"), prompt)
        return await run_process(*words, cwd=self.workdir, env=self.env)

    async def version(self) -> str:
        return await version_of("claude", self.home)


CLAUDE_CODE = Kind(HEADING, anthropic.routes, ClaudeCode.set_up)
