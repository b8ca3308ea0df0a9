"""Accounts from the command line: users and passwords, administrators, deactivation, identities
at the team's provider linked to them, personal tokens, sign-in links, the demo.

Each command opens the services on the data dir (migrating it first), does one thing and closes
them; none prints a password.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from romergo.common.config import Settings
from romergo.common.errors import RomergoError

if TYPE_CHECKING:
    from romergo.access.accounts.ledger import User
    from romergo.services import Services

T = TypeVar("T")


def add_commands(
    commands: Any, common: argparse.ArgumentParser, add_address: Callable[[argparse.ArgumentParser], None]
) -> None:
    users = commands.add_parser("user", help="manage accounts").add_subparsers(dest="action", required=True)
    add = users.add_parser("add", parents=[common], help="add an account (password from stdin or prompted)")
    add.add_argument("name")
    add.set_defaults(run=user_add)
    passwd = users.add_parser("passwd", parents=[common], help="set an account's password")
    passwd.add_argument("name")
    passwd.set_defaults(run=user_passwd)
    link = users.add_parser(
        "link", parents=[common], help="let an identity of the configured provider sign in as an account"
    )
    link.add_argument("name")
    link.add_argument("subject", help="the identity's subject (`sub`), as a refused sign-in logs it")
    link.set_defaults(run=user_link)
    listed = users.add_parser("list", parents=[common], help="list the accounts")
    listed.set_defaults(run=user_list)
    admin = users.add_parser("admin", parents=[common], help="make an account an administrator")
    admin.add_argument("name")
    admin.add_argument("--remove", action="store_true", help="take the administrator role away instead")
    admin.set_defaults(run=user_admin)
    deactivate = users.add_parser(
        "deactivate",
        parents=[common],
        help="stop an account signing in; ends its sessions, revokes its agents",
    )
    deactivate.add_argument("name")
    deactivate.set_defaults(run=user_deactivate)
    reactivate = users.add_parser(
        "reactivate", parents=[common], help="let a deactivated account sign in again"
    )
    reactivate.add_argument("name")
    reactivate.set_defaults(run=user_reactivate)

    tokens = commands.add_parser("token", help="personal access tokens").add_subparsers(
        dest="action", required=True
    )
    create = tokens.add_parser(
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

    signin_link = commands.add_parser(
        "login-link", parents=[common], help="print a fresh one-time sign-in link (no restart needed)"
    )
    signin_link.add_argument("--user", default=None, help="whose link (default: the first account)")
    add_address(signin_link)
    signin_link.set_defaults(run=login_link)

    seed = commands.add_parser("seed-demo", parents=[common], help="add the demo project (idempotent)")
    seed.add_argument("--user", default="author")
    seed.set_defaults(run=seed_demo)


def user_add(settings: Settings, args: argparse.Namespace) -> int:
    password = read_password()
    with_services(settings, lambda services: services.accounts.create_user(args.name, password))
    print(f"User {args.name.strip().lower()} added.")
    return 0


def user_passwd(settings: Settings, args: argparse.Namespace) -> int:
    password = read_password()
    with_services(settings, lambda services: services.accounts.set_password(args.name, password))
    print(f"Password of {args.name} changed; their browser sessions were ended.")
    return 0


def user_link(settings: Settings, args: argparse.Namespace) -> int:
    user = with_services(settings, lambda services: services.identities.link(args.name, args.subject))
    print(f"{settings.oidc_provider_name} identity {args.subject!r} now signs in as {user.username}.")
    return 0


def user_list(settings: Settings, _args: argparse.Namespace) -> int:
    from romergo.access.accounts.people import COMMAND_LINE

    for user in with_services(settings, lambda services: services.people.listed(COMMAND_LINE)):
        signed_in = f"{user.last_sign_in_at:%Y-%m-%d %H:%M} UTC" if user.last_sign_in_at else "never"
        print(
            f"{user.username}\t{'administrator' if user.administrator else 'member'}\t"
            f"{'deactivated' if user.deactivated_at else 'active'}\t"
            f"created {user.created_at:%Y-%m-%d %H:%M} UTC\tlast sign-in {signed_in}"
        )
    return 0


def user_admin(settings: Settings, args: argparse.Namespace) -> int:
    from romergo.access.accounts.people import COMMAND_LINE

    administrator = not args.remove
    user = with_services(
        settings, lambda services: services.people.set_administrator(COMMAND_LINE, args.name, administrator)
    )
    print(f"{user.username} is {'now' if administrator else 'no longer'} an administrator.")
    return 0


def user_deactivate(settings: Settings, args: argparse.Namespace) -> int:
    from romergo.access.accounts.people import COMMAND_LINE

    user = with_services(settings, lambda services: services.deactivate_account(COMMAND_LINE, args.name))
    print(f"{user.username} deactivated; their browser sessions were ended and their agents revoked.")
    return 0


def user_reactivate(settings: Settings, args: argparse.Namespace) -> int:
    from romergo.access.accounts.people import COMMAND_LINE

    user = with_services(settings, lambda services: services.people.reactivate(COMMAND_LINE, args.name))
    print(f"{user.username} can sign in again.")
    return 0


def token_create(settings: Settings, args: argparse.Namespace) -> int:
    from romergo.access.agents import parse_scopes

    scopes = parse_scopes(args.scopes) if args.scopes is not None else None

    async def create(services: Services) -> str:
        token, _client_id = await services.agents.personal.create(
            args.user.strip().lower(), name=args.name, scopes=scopes, expires_days=args.expires_days
        )
        return token

    print(with_services(settings, create))
    return 0


def login_link(settings: Settings, args: argparse.Namespace) -> int:
    from romergo.access.accounts.people import COMMAND_LINE

    async def link(services: Services) -> str:
        user = await account(services, args.user)
        # As "Sign-in link" on /settings/people: none for a deactivated account.
        token = await services.people.signin_link(COMMAND_LINE, user.username)
        return f"{settings.base_url}/login?token={token}"

    print(f"Sign in: {with_services(settings, link)}")
    return 0


def seed_demo(settings: Settings, args: argparse.Namespace) -> int:
    from romergo.demo.seed import seed_demo as seed

    async def run(services: Services) -> tuple[str, bool]:
        user = await services.accounts.user_by_name(args.user)
        if user is None:
            raise RomergoError("not_found", f'User "{args.user}" does not exist.')
        project, created = await seed(services, user.id)
        return project.id, created

    project_id, created = with_services(settings, run)
    print(f"{'Seeded' if created else 'Already there:'} demo project {project_id}")
    return 0


def with_services(settings: Settings, work: Callable[[Services], Awaitable[T]]) -> T:
    """Run one piece of work on freshly opened services, closing them whatever happens."""
    from romergo.services import open_services

    async def run() -> T:
        services = await open_services(settings)
        try:
            return await work(services)
        finally:
            await services.close()

    return asyncio.run(run())


async def account(services: Services, name: str | None) -> User:
    """The account a command acts for: `name`'s, or without one the first account."""
    if name is None:
        if await services.accounts.user_count() == 0:
            raise RomergoError("not_found", "There is no account yet: start `romergo serve` once.")
        user, _ = await services.accounts.ensure_first_user()
        return user
    found = await services.accounts.user_by_name(name)
    if found is None:
        raise RomergoError("not_found", f'User "{name}" does not exist.')
    return found


def read_password() -> str:
    from romergo.access.accounts.passwords import check_strength

    if not sys.stdin.isatty():
        line = sys.stdin.readline().rstrip("\r\n")
        return check_strength(line)
    first = getpass.getpass("Password (at least 12 characters): ")
    check_strength(first)
    if getpass.getpass("Repeat the password: ") != first:
        raise RomergoError("invalid_argument", "The two passwords differ.")
    return first
