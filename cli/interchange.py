"""`romergo export` and `romergo import`: a project to a file and a file to a new project.

Both act for one account (`--user`, default: the first one), as the editor would: an export sees
only that account's projects, an import creates a project that account owns. What a format has no
room for is printed as notes on stderr; nothing is dropped without saying so.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.accounts import account, with_services
from romergo.common.actors import user_actor
from romergo.common.config import Settings
from romergo.common.errors import RomergoError

if TYPE_CHECKING:  # the services are imported when a command runs, not for `romergo --help`
    from romergo.services import Services


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    export = commands.add_parser("export", parents=[common], help="write a project to a file")
    export.add_argument("project_id")
    export.add_argument("--format", default="archive", choices=("archive", "twee", "yarn"))
    export.add_argument("--to", default=None, help="file or folder to write (default: this folder)")
    export.add_argument("--user", default=None, help="whose project (default: the first account)")
    export.set_defaults(run=run_export)
    imported = commands.add_parser("import", parents=[common], help="make a new project from a file")
    imported.add_argument("file", help=".romergo.zip, .twee, Twine 2 .html or .yarn")
    imported.add_argument("--format", default=None, choices=("archive", "twee", "yarn"))
    imported.add_argument("--user", default=None, help="who owns the project (default: the first account)")
    imported.set_defaults(run=run_import)


def run_export(settings: Settings, args: argparse.Namespace) -> int:
    async def export(services: Services) -> tuple[str, bytes, list[str]]:
        user = await account(services, args.user)
        actor = user_actor(user.id, user.username)
        made = await services.interchange.export_project(actor, args.project_id, args.format)
        return made.filename, made.data, made.notes

    filename, data, notes = with_services(settings, export)
    target = Path(args.to) if args.to else Path(filename)
    if target.is_dir():
        target = target / filename
    target.write_bytes(data)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"exported to {target} ({len(data):,} bytes)")
    return 0


def run_import(settings: Settings, args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.is_file():
        raise RomergoError("invalid_argument", f"There is no file {path}.")
    from romergo.interchange.service import MAX_FILE_BYTES  # with the services, not for `--help`

    if (size := path.stat().st_size) > MAX_FILE_BYTES:
        raise RomergoError(
            "invalid_argument", f"{path} has {size:,} bytes; an import reads at most {MAX_FILE_BYTES:,}."
        )
    data = path.read_bytes()

    async def load(services: Services) -> tuple[str, str, int, list[str]]:
        user = await account(services, args.user)
        done = await services.interchange.import_file(
            user_actor(user.id, user.username), path.name, data, args.format
        )
        return done.project.id, done.project.title, done.scenes, done.notes

    project_id, title, scenes, notes = with_services(settings, load)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f'imported "{title}" as project {project_id} ({scenes} scenes)')
    return 0
