"""`romergo …`: parse, build the settings, run one command, turn domain errors into exit codes."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence

import romergo
from cli import accounts, backup, channel, client, database, demo, interchange
from romergo.common.config import Settings, settings_from_env
from romergo.common.errors import RomergoError

COMMANDS = (
    *("serve", "user", "token", "login-link", "seed-demo", "channel", "demo-agent"),
    *("db", "backup", "restore", "export", "import", "client"),
)


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """`env` stands for the process environment (tests run a command in process with a server's)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in (*COMMANDS, "-h", "--help", "--version"):
        args.insert(0, "serve")  # `python app.py [--port N]` is `romergo serve [--port N]`
    parsed = parser().parse_args(args)
    try:
        settings = settings_from_env(
            env,
            data_dir=parsed.data_dir,
            host=getattr(parsed, "host", None),
            port=getattr(parsed, "port", None),
            public_url=getattr(parsed, "public_url", None),
        )
    except ValueError as error:
        print(f"romergo: {error}", file=sys.stderr)
        return 2
    try:
        result: int = parsed.run(settings, parsed)
        return result
    except RomergoError as error:
        print(f"romergo: {error.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir", help="where the database and secrets live (env ROMERGO_DATA_DIR, default ./data)"
    )
    root = argparse.ArgumentParser(
        prog="romergo", description="Romergo: branching stories your own agent can join."
    )
    root.add_argument("--version", action="version", version=f"romergo {romergo.version()}")
    commands = root.add_subparsers(dest="command", required=True)

    serve_cmd = commands.add_parser("serve", parents=[common], help="run the server")
    _add_address(serve_cmd)
    serve_cmd.set_defaults(run=serve)

    accounts.add_commands(commands, common, _add_address)
    channel.add_commands(commands, common)
    client.add_commands(commands, common)
    demo.add_commands(commands, common)
    database.add_commands(commands, common)
    backup.add_commands(commands, common)
    interchange.add_commands(commands, common)
    return root


def serve(settings: Settings, _args: argparse.Namespace) -> int:
    from app import serve as run_server

    run_server(settings)
    return 0


def _add_address(command: argparse.ArgumentParser) -> None:
    command.add_argument("--host", default=None, help="address to bind (default 127.0.0.1)")
    command.add_argument("--port", type=int, default=None, help="port (default 8080)")
    command.add_argument(
        "--public-url", default=None, help="base URL behind a proxy (env ROMERGO_PUBLIC_URL)"
    )
