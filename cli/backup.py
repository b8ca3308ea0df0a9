"""`romergo backup` and `romergo restore`: a consistent copy of the data directory, and putting it back.

`backup` may run while the server runs (SQLite's online backup API: see `storage.backup`);
`restore` refuses while a server runs on the target data directory. Both refuse on PostgreSQL,
whose own tools (pg_dump) do this job.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from romergo.common.clock import utcnow
from romergo.common.config import Settings
from romergo.common.errors import RomergoError

RESTORE_DESCRIPTION = (
    "Check a backup, then put it back as the data dir. Only the files backup.json lists are copied, "
    "each checked against its size and SHA-256; links, special files, SQLite journals and files it "
    "does not list are refused, changing nothing. A checksum is not a signature: whoever can write "
    "the backup folder can write a matching backup.json, so keep backups where only you can write."
)
POSTGRES_ADVICE = (
    "This install keeps its data in PostgreSQL: back it up with PostgreSQL's own tools "
    "(pg_dump and pg_restore; see docs/deploying.md)."
)


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    backup = commands.add_parser(
        "backup", parents=[common], help="write a consistent copy of the data dir (safe while serving)"
    )
    backup.add_argument(
        "--to", default=None, help="folder to write it into (default: backups/ beside the data dir)"
    )
    backup.add_argument(
        "--keep", type=int, default=None, help="then delete all but the newest N backups there"
    )
    backup.set_defaults(run=run_backup)
    restore = commands.add_parser(
        "restore",
        parents=[common],
        help="put a backup back as the data dir (stop the server first)",
        description=RESTORE_DESCRIPTION,
    )
    restore.add_argument("backup", help="the backup's folder (romergo-backup-…)")
    restore.add_argument(
        "--replace", action="store_true", help="restore over an existing database (kept beside it)"
    )
    restore.set_defaults(run=run_restore)


def run_backup(settings: Settings, args: argparse.Namespace) -> int:
    from storage.backup import BackupRefused, backup_data_dir

    _refuse_other_databases(settings)
    folder = Path(args.to) if args.to else default_folder(settings)
    try:
        made = backup_data_dir(settings.data_dir, folder, now=utcnow(), keep=args.keep)
    except BackupRefused as refused:
        raise RomergoError("invalid_argument", str(refused)) from None
    size = made.database_bytes / (1 << 20)
    print(
        f"backup written: {made.path} (database {size:.1f} MB, schema {made.schema_revision}, "
        f"{made.files} other files)"
    )
    return 0


def run_restore(settings: Settings, args: argparse.Namespace) -> int:
    from storage.backup import BackupRefused, read_manifest, restore_data_dir
    from storage.migrate import current_revision, known_revisions, upgrade

    _refuse_other_databases(settings)
    backup = Path(args.backup)
    try:
        revision = read_manifest(backup).schema_revision
        if revision not in known_revisions():
            raise BackupRefused(
                f"{backup} was made by a newer Romergo (schema {revision}): upgrade Romergo, then restore."
            )
        kept = restore_data_dir(backup, settings.data_dir, replace=args.replace, now=utcnow())
    except BackupRefused as refused:
        raise RomergoError("invalid_argument", str(refused)) from None

    async def upgraded(url: str) -> str | None:
        await upgrade(url)
        return await current_revision(url)

    now_at = asyncio.run(upgraded(settings.resolved_database_url))
    print(f"restored {backup} into {settings.data_dir} (schema {revision}, now {now_at})")
    if kept is not None:
        print(f"the database it replaced is kept as {kept}")
    return 0


def default_folder(settings: Settings) -> Path:
    return settings.data_dir.resolve().parent / "backups"


def _refuse_other_databases(settings: Settings) -> None:
    """Backups cover the data dir's own SQLite file; a database kept elsewhere is its owner's to copy."""
    from storage.inline_sqlite import database_file

    url = settings.resolved_database_url
    if not url.startswith("sqlite"):
        raise RomergoError("invalid_argument", POSTGRES_ADVICE)
    if Path(database_file(url)).resolve() != (settings.data_dir / "romergo.db").resolve():
        raise RomergoError(
            "invalid_argument",
            f"ROMERGO_DATABASE_URL points outside the data dir ({url}): back that file up with "
            "sqlite3's .backup command.",
        )
