"""`romergo db …`: the database itself: bring it to the current schema, or copy an install to another.

`db copy --from sqlite:///data/romergo.db --to postgresql://user:pass@host/db` moves a single-author
install to PostgreSQL: every table, the target empty beforehand, the counts compared after.
Stop the server first: a copy taken while it writes could miss the last changes.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from romergo.common.config import Settings
from romergo.common.errors import RomergoError


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    db = commands.add_parser("db", help="the database: upgrade, copy").add_subparsers(
        dest="action", required=True
    )
    upgrade = db.add_parser(
        "upgrade",
        parents=[common],
        help="migrate the database (ROMERGO_DATABASE_URL or the data dir's) to head",
    )
    upgrade.set_defaults(run=db_upgrade)
    copy = db.add_parser(
        "copy", parents=[common], help="copy every table to an empty database, then compare the counts"
    )
    copy.add_argument("--from", dest="source", help="the database to copy (default: this install's)")
    copy.add_argument("--to", dest="target", required=True, help="an empty database, e.g. postgresql://…")
    copy.set_defaults(run=db_copy)


def db_upgrade(settings: Settings, _args: argparse.Namespace) -> int:
    from storage.migrate import current_revision, upgrade

    async def upgraded(url: str) -> str | None:
        await upgrade(url)
        return await current_revision(url)

    print(f"at revision {asyncio.run(upgraded(settings.resolved_database_url))}")
    return 0


def db_copy(settings: Settings, args: argparse.Namespace) -> int:
    from storage.copy import CopyRefused, copy_database

    source = args.source or settings.resolved_database_url
    try:
        copied = asyncio.run(copy_database(source, args.target))
    except CopyRefused as refused:
        raise RomergoError("invalid_argument", str(refused)) from None
    except (OSError, ConnectionError) as error:
        raise RomergoError("invalid_argument", f"Cannot reach a database: {error}") from None
    for table in copied:
        print(f"{table.name:<24} {table.rows:>8}")
    print(f"copied {sum(table.rows for table in copied)} rows in {len(copied)} tables; every count verified")
    return 0
