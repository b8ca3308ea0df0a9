"""`romergo channel …`: the owner's side of a channel over the JSON API, printing JSON.

It authenticates with a token that carries `romergo:control` (`--token` or ROMERGO_TOKEN) and talks
to a running server (`--url` or ROMERGO_URL), exactly as any script would.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from romergo.common.config import Settings
from romergo.common.errors import RomergoError

DEFAULT_URL = "http://127.0.0.1:8080"
EVENTS_WAIT_SECONDS = 25


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    remote = argparse.ArgumentParser(add_help=False)
    remote.add_argument(
        "--url", default=None, help=f"server base URL (env ROMERGO_URL, default {DEFAULT_URL})"
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
                params={"after": after, "wait": EVENTS_WAIT_SECONDS if args.follow else 0},
            )
            for event in answer["events"]:
                print(json.dumps(event, ensure_ascii=False), flush=True)
            after = answer["cursor"]
            if not args.follow:
                return 0
    except KeyboardInterrupt:
        return 0


def _api(args: argparse.Namespace, method: str, path: str, body: Any = None, params: Any = None) -> Any:
    import httpx2

    url = (args.url or os.environ.get("ROMERGO_URL") or DEFAULT_URL).rstrip("/")
    token = args.token or os.environ.get("ROMERGO_TOKEN")
    if not token:
        raise RomergoError("unauthorized", "Give a token with the control scope: --token or ROMERGO_TOKEN.")
    try:
        answer = httpx2.request(
            method,
            f"{url}/api/v1{path}",
            json=body,
            params=params,
            timeout=EVENTS_WAIT_SECONDS + 35,
            headers={"Authorization": f"Bearer {token}"},
        )
    except httpx2.HTTPError as error:
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
