"""`romergo demo-agent`: run the scripted demo agent in this terminal.

Without `--token` (or ROMERGO_AGENT_TOKEN; never ROMERGO_TOKEN, the owner's variable) it uses the
demo agent's own token kept in the data dir, the same one "Try the demo agent" uses, so either way
it is the same client.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from cli.accounts import with_services
from romergo.common.config import Settings


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    agent = commands.add_parser("demo-agent", parents=[common], help="run the scripted demo agent")
    agent.add_argument("--url", required=True, help="the server's base URL or its /mcp endpoint")
    agent.add_argument("--code", required=True, help="the join code from the agent panel")
    agent.add_argument(
        "--token",
        default=None,
        help="personal access token (env ROMERGO_AGENT_TOKEN; default: kept in the data dir)",
    )
    agent.add_argument(
        "--user", default=None, help="whose token to mint when --token is not given (default: first user)"
    )
    agent.set_defaults(run=demo_agent)


def demo_agent(settings: Settings, args: argparse.Namespace) -> int:
    from demo_agent.runner import exit_code, run_until_signalled

    token = args.token or os.environ.get("ROMERGO_AGENT_TOKEN") or _kept_token(settings, args.user)
    return exit_code(run_until_signalled(args.url, args.code, token))


def _kept_token(settings: Settings, username: str | None) -> str:
    from romergo.demo.agent_process import demo_token
    from romergo.services import Services

    async def token(services: Services) -> str:
        name = username
        if name is None:
            user, _ = await services.accounts.ensure_first_user()
            name = user.username
        return await demo_token(services, name)

    return with_services(settings, token)
