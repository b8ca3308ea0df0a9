"""The demo agent as a process the server looks after: "Try the demo agent" in the panel.

The scripted agent is an outside agent (`demo_agent`, run as `python -m demo_agent`); the server
only starts and stops it, handing it a personal token of its own through the environment (never on
the command line, where `ps` would show it). The token is kept in the data dir so a restarted demo
agent is the same client and gets its unfinished command back instead of being a stranger.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from typing import TYPE_CHECKING

from romergo.demo import DEMO_AGENT_NAME

if TYPE_CHECKING:
    from romergo.services import Services

DEMO_TOKEN_FILE = "demo-agent-{user}.token"  # noqa: S105 - a file name
STOP_SECONDS = 5


async def demo_token(services: Services, username: str) -> str:
    """The demo agent's own personal token for `username`, minted once and kept (mode 0600)."""
    path = services.settings.data_dir / DEMO_TOKEN_FILE.format(user=username)
    if path.exists():
        kept = path.read_text(encoding="ascii").strip()
        if await services.agents.tokens.identity(kept) is not None:
            return kept
    token, _ = await services.agents.personal.create(username, name=DEMO_AGENT_NAME)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(token)
    return token


class DemoAgentProcesses:
    """One scripted agent process per user.

    Clicking twice does not start a second one; a new code (a new channel) replaces the old one.
    """

    def __init__(self, services: Services) -> None:
        self.services = services
        self.running: dict[str, tuple[asyncio.subprocess.Process, str]] = {}

    async def start(self, user_id: str, username: str, code: str) -> str:
        current = self.running.get(user_id)
        if current is not None and current[0].returncode is None:
            if current[1] == code:
                return "The demo agent is already running."
            await _stop(current[0])
        settings = self.services.settings
        host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "localhost") else settings.host  # noqa: S104
        env = {**os.environ, "ROMERGO_AGENT_TOKEN": await demo_token(self.services, username)}
        log = open(settings.data_dir / f"demo-agent-{username}.log", "ab")  # noqa: SIM115, ASYNC230 - tiny, once
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "demo_agent",
            "--url",
            f"http://{host}:{settings.port}",
            "--code",
            code,
            env=env,
            stdout=log,
            stderr=asyncio.subprocess.STDOUT,
        )
        log.close()
        self.running[user_id] = (process, code)
        return "The scripted demo agent is starting: it shows as listening in a moment."

    async def stop_all(self) -> None:
        for process, _ in self.running.values():
            await _stop(process)


async def _stop(process: asyncio.subprocess.Process) -> None:
    """SIGTERM lets the agent leave its channel before it exits; it does so within a second."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), STOP_SECONDS)
        except TimeoutError:
            process.kill()
            await process.wait()
