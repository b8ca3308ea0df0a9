"""The command-line commands that talk to a running server: `channel …` and `demo-agent`.

`channel` uses the JSON API with a bearer token that carries `romergo:control` (`--token` or
ROMERGO_TOKEN) and prints JSON. `demo-agent` runs the scripted agent against `--url`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from romergo.config import Settings
from romergo.demo import DEMO_AGENT_NAME
from romergo.errors import RomergoError

if TYPE_CHECKING:
    from romergo.services import Services

DEMO_TOKEN_FILE = "demo-agent-{user}.token"  # noqa: S105 - a file name
APP_PY = Path(__file__).resolve().parent / "app.py"


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    remote = argparse.ArgumentParser(add_help=False)
    remote.add_argument(
        "--url", default=None, help="server base URL (env ROMERGO_URL, default http://127.0.0.1:8080)"
    )
    remote.add_argument("--token", default=None, help="token with the control scope (env ROMERGO_TOKEN)")
    channel = commands.add_parser("channel", help="drive a channel from the owner's side").add_subparsers(
        dest="action", required=True
    )
    opened = channel.add_parser("open", parents=[common, remote], help="open a channel for a project")
    opened.add_argument("project_id")
    opened.set_defaults(run=channel_open)
    send = channel.add_parser("send", parents=[common, remote], help="send a command")
    send.add_argument("channel_id")
    send.add_argument("text")
    send.set_defaults(run=channel_send)
    events = channel.add_parser("events", parents=[common, remote], help="print the channel's events")
    events.add_argument("channel_id")
    events.add_argument("--follow", action="store_true", help="keep printing new events as they come")
    events.set_defaults(run=channel_events)
    end = channel.add_parser("end", parents=[common, remote], help="end the channel")
    end.add_argument("channel_id")
    end.set_defaults(run=channel_end)

    agent = commands.add_parser("demo-agent", parents=[common], help="run the scripted demo agent")
    agent.add_argument("--url", required=True, help="the server's base URL or its /mcp endpoint")
    agent.add_argument("--code", required=True, help="the join code from the agent panel")
    agent.add_argument(
        "--token",
        default=None,
        help="personal access token (env ROMERGO_TOKEN; default: kept in the data dir)",
    )
    agent.add_argument(
        "--user", default=None, help="whose token to mint when --token is not given (default: first user)"
    )
    agent.set_defaults(run=demo_agent)


def channel_open(_: Settings, args: argparse.Namespace) -> int:
    return _print(_api(args, "POST", "/channels", {"project_id": args.project_id}))


def channel_send(_: Settings, args: argparse.Namespace) -> int:
    return _print(_api(args, "POST", f"/channels/{args.channel_id}/commands", {"text": args.text}))


def channel_end(_: Settings, args: argparse.Namespace) -> int:
    return _print(_api(args, "POST", f"/channels/{args.channel_id}/end"))


def channel_events(_: Settings, args: argparse.Namespace) -> int:
    after = 0
    try:
        while True:
            answer = _api(
                args,
                "GET",
                f"/channels/{args.channel_id}/events",
                params={"after": after, "wait": 25 if args.follow else 0},
            )
            for event in answer["events"]:
                print(json.dumps(event, ensure_ascii=False), flush=True)
            after = answer["cursor"]
            if not args.follow:
                return 0
    except KeyboardInterrupt:
        return 0


def demo_agent(settings: Settings, args: argparse.Namespace) -> int:
    from demo_agent import DemoAgent

    token = args.token or os.environ.get("ROMERGO_TOKEN") or asyncio.run(_demo_token(settings, args.user))
    agent = DemoAgent(args.url, args.code, token, say=lambda message: print(message, flush=True))

    async def run() -> str:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        return await agent.run(stop)

    outcome = asyncio.run(run())
    return 0 if outcome in ("stopped", "channel_ended") else 1


async def _demo_token(settings: Settings, username: str | None) -> str:
    from romergo.services import open_services

    services = await open_services(settings)
    try:
        if username is None:
            user, _ = await services.accounts.ensure_first_user()
            username = user.username
        return await demo_token(services, username)
    finally:
        await services.close()


async def demo_token(services: Services, username: str) -> str:
    """The demo agent's own personal token, kept in the data dir so a restarted agent is the same
    client (it gets its unfinished command again instead of being a stranger)."""
    path = services.settings.data_dir / DEMO_TOKEN_FILE.format(user=username)
    if path.exists():
        kept = path.read_text(encoding="ascii").strip()
        if await services.agents.identity(kept) is not None:
            return kept
    token, _ = await services.agents.create_personal_token(username, name=DEMO_AGENT_NAME)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(token)
    return token


class DemoAgentProcesses:
    """ "Try the demo agent": one scripted agent process per user, started by the server itself.

    Clicking twice does not start a second one; a new code (a new channel) replaces the old one.
    The token travels in the environment, not on the command line where `ps` would show it.
    """

    def __init__(self, services: Services) -> None:
        self.services = services
        self.running: dict[str, tuple[asyncio.subprocess.Process, str]] = {}

    async def start(self, user_id: str, username: str, code: str) -> str:
        current = self.running.get(user_id)
        if current is not None and current[0].returncode is None:
            if current[1] == code:
                return "The demo agent is already running."
            current[0].terminate()
            await current[0].wait()
        settings = self.services.settings
        host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "localhost") else settings.host  # noqa: S104
        env = {**os.environ, "ROMERGO_TOKEN": await demo_token(self.services, username)}
        log = open(settings.data_dir / f"demo-agent-{username}.log", "ab")  # noqa: SIM115, ASYNC230 - tiny, once
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(APP_PY),
            "demo-agent",
            "--url",
            f"http://{host}:{settings.port}",
            "--code",
            code,
            "--data-dir",
            str(settings.data_dir),
            env=env,
            stdout=log,
            stderr=asyncio.subprocess.STDOUT,
        )
        log.close()
        self.running[user_id] = (process, code)
        return "The scripted demo agent is starting: it shows as listening in a moment."

    async def stop_all(self) -> None:
        for process, _ in self.running.values():
            if process.returncode is None:
                process.terminate()
                with contextlib.suppress(ProcessLookupError):
                    await asyncio.wait_for(process.wait(), 5)


def _api(args: argparse.Namespace, method: str, path: str, body: Any = None, params: Any = None) -> Any:
    import httpx

    url = (args.url or os.environ.get("ROMERGO_URL") or "http://127.0.0.1:8080").rstrip("/")
    token = args.token or os.environ.get("ROMERGO_TOKEN")
    if not token:
        raise RomergoError("unauthorized", "Give a token with the control scope: --token or ROMERGO_TOKEN.")
    try:
        answer = httpx.request(
            method,
            f"{url}/api/v1{path}",
            json=body,
            params=params,
            timeout=60,
            headers={"Authorization": f"Bearer {token}"},
        )
    except httpx.HTTPError as error:
        raise RomergoError("internal", f"Cannot reach Romergo at {url}: {error}") from None
    data = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else {}
    if answer.status_code >= 400:
        problem = data.get("error", {}) if isinstance(data, dict) else {}
        message = problem.get("message", f"HTTP {answer.status_code}")
        raise RomergoError(problem.get("code", "internal"), message)
    return data


def _print(data: Any) -> int:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    print()
    return 0
