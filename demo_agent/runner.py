"""Run the demo agent in the foreground until the channel ends or the process is told to stop.

SIGINT (Ctrl-C) and SIGTERM set the agent's stop event: a parked long-poll is abandoned at once
and the agent leaves its channel before it exits.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

from demo_agent.agent import DemoAgent

CLEAN_OUTCOMES = ("stopped", "channel_ended")


def run_until_signalled(url: str, code: str, token: str, say: Callable[[str], None] | None = None) -> str:
    async def run() -> str:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        agent = DemoAgent(url, code, token, say=say or (lambda message: print(message, flush=True)))
        return await agent.run(stop)

    return asyncio.run(run())


def exit_code(outcome: str) -> int:
    return 0 if outcome in CLEAN_OUTCOMES else 1
