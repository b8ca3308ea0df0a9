"""Romergo's composition root and the `romergo` command line.

config → database → services → adapters mounted on one FastAPI app → uvicorn. `python app.py` is
`romergo serve`. Every command takes `--data-dir` (env `ROMERGO_DATA_DIR`, default `./data`) and
works while a server runs on the same data dir.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from romergo.config import Settings, settings_from_env
from romergo.errors import RomergoError

if TYPE_CHECKING:
    from fastapi import FastAPI

    from romergo.services import Services

COMMANDS = ("serve", "user", "token", "seed-demo", "channel", "demo-agent")
MIB = 1024 * 1024


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in (*COMMANDS, "-h", "--help"):
        args.insert(0, "serve")  # `python app.py [--port N]` is `romergo serve [--port N]`
    parsed = _parser().parse_args(args)
    try:
        settings = settings_from_env(
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


def build_app(services: Services) -> FastAPI:
    """One app for everything: adapters (MCP, the API) are added before the UI, which mounts at `/`.

    Configure logging before calling this: the MCP SDK's server constructor calls `logging.basicConfig`.
    """
    from fastapi import FastAPI

    import api
    import mcp_tools.http
    import ui
    from app_middleware import BodyLimit, NoStore, SecurityHeaders
    from app_remote import DemoAgentProcesses
    from mcp_tools.server import build_server
    from romergo.services import first_start, migrate

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await migrate(services.settings)
        user, _created = await first_start(services)
        await services.agents.purge_expired()
        token = await services.accounts.create_signin_link(user.id)
        sweeper = asyncio.create_task(services.channels.run_sweeper(), name="channel sweeper")
        try:
            async with mcp_http.running():
                print(f"Sign in: {services.settings.base_url}/login?token={token}", flush=True)
                yield
        finally:
            sweeper.cancel()
            await demo_agents.stop_all()
            await services.close()

    app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.services = services
    mcp_http = mcp_tools.http.mount(app, services, build_server(services))
    app.state.mcp = mcp_http
    api.mount(app, services, services.agents.identity)
    demo_agents = DemoAgentProcesses(services)
    ui.mount(app, services, demo_agents)
    limits = [
        ("/mcp", 5 * MIB),
        ("/token", 5 * MIB),
        ("/register", 5 * MIB),
        ("/login", MIB),
        ("/logout", MIB),
    ]
    app.add_middleware(BodyLimit, limits=limits, default=30 * MIB)
    # Consent, OAuth errors and the agents page must never be cached or shown from a back button.
    app.add_middleware(NoStore, prefixes=["/oauth/", "/authorize", "/settings/agents"])
    app.add_middleware(SecurityHeaders)
    return app


def serve(settings: Settings, _args: argparse.Namespace) -> int:
    import uvicorn

    from romergo.services import build_services

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = build_app(build_services(settings))
    # A long-poll in flight must not hold shutdown for its whole window.
    uvicorn.run(app, host=settings.host, port=settings.port, timeout_graceful_shutdown=2, log_level="info")
    return 0


def user_add(settings: Settings, args: argparse.Namespace) -> int:
    password = _read_password()

    async def run() -> None:
        services = await _services(settings)
        try:
            await services.accounts.create_user(args.name, password)
        finally:
            await services.close()

    asyncio.run(run())
    print(f"User {args.name.strip().lower()} added.")
    return 0


def user_passwd(settings: Settings, args: argparse.Namespace) -> int:
    password = _read_password()

    async def run() -> None:
        services = await _services(settings)
        try:
            await services.accounts.set_password(args.name, password)
        finally:
            await services.close()

    asyncio.run(run())
    print(f"Password of {args.name} changed; their browser sessions were ended.")
    return 0


def token_create(settings: Settings, args: argparse.Namespace) -> int:
    from romergo.agents import parse_scopes

    scopes = parse_scopes(args.scopes) if args.scopes is not None else None

    async def run() -> str:
        services = await _services(settings)
        try:
            token, _client_id = await services.agents.create_personal_token(
                args.user.strip().lower(), name=args.name, scopes=scopes, expires_days=args.expires_days
            )
            return token
        finally:
            await services.close()

    print(asyncio.run(run()))
    return 0


def seed_demo(settings: Settings, args: argparse.Namespace) -> int:
    from romergo.demo.seed import seed_demo as seed

    async def run() -> tuple[str, bool]:
        services = await _services(settings)
        try:
            user = await services.accounts.user_by_name(args.user)
            if user is None:
                raise RomergoError("not_found", f'User "{args.user}" does not exist.')
            project, created = await seed(services, user.id)
            return project.id, created
        finally:
            await services.close()

    project_id, created = asyncio.run(run())
    print(f"{'Seeded' if created else 'Already there:'} demo project {project_id}")
    return 0


async def _services(settings: Settings) -> Services:
    from romergo.services import open_services

    return await open_services(settings)


def _read_password() -> str:
    from romergo.accounts.passwords import check_strength

    if not sys.stdin.isatty():
        line = sys.stdin.readline().rstrip("\r\n")
        return check_strength(line)
    first = getpass.getpass("Password (at least 12 characters): ")
    check_strength(first)
    if getpass.getpass("Repeat the password: ") != first:
        raise RomergoError("invalid_argument", "The two passwords differ.")
    return first


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir", help="where the database and secrets live (env ROMERGO_DATA_DIR, default ./data)"
    )
    parser = argparse.ArgumentParser(
        prog="romergo", description="Romergo: branching stories your own agent can join."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    serve_cmd = commands.add_parser("serve", parents=[common], help="run the server")
    serve_cmd.add_argument("--host", default=None, help="address to bind (default 127.0.0.1)")
    serve_cmd.add_argument("--port", type=int, default=None, help="port (default 8080)")
    serve_cmd.add_argument(
        "--public-url", default=None, help="base URL behind a proxy (env ROMERGO_PUBLIC_URL)"
    )
    serve_cmd.set_defaults(run=serve)

    user_cmd = commands.add_parser("user", help="manage accounts").add_subparsers(
        dest="action", required=True
    )
    add = user_cmd.add_parser(
        "add", parents=[common], help="add an account (password from stdin or prompted)"
    )
    add.add_argument("name")
    add.set_defaults(run=user_add)
    passwd = user_cmd.add_parser("passwd", parents=[common], help="set an account's password")
    passwd.add_argument("name")
    passwd.set_defaults(run=user_passwd)

    token_cmd = commands.add_parser("token", help="personal access tokens").add_subparsers(
        dest="action", required=True
    )
    create = token_cmd.add_parser(
        "create", parents=[common], help="make a personal access token for USER and print it (only it)"
    )
    create.add_argument("user")
    create.add_argument("--name", default=None, help="shown on the agents settings page")
    create.add_argument(
        "--scopes",
        default=None,
        help="comma-separated: read, edit, media, publish, delete, control (default read,edit,media)",
    )
    create.add_argument("--expires-days", type=int, default=90, help="lifetime in days (default 90)")
    create.set_defaults(run=token_create)

    seed_cmd = commands.add_parser("seed-demo", parents=[common], help="add the demo project (idempotent)")
    seed_cmd.add_argument("--user", default="author")
    seed_cmd.set_defaults(run=seed_demo)

    from app_remote import add_commands

    add_commands(commands, common)
    return parser


if __name__ == "__main__":
    sys.exit(main())
