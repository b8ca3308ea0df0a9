"""`romergo client …`: the agents' metadata documents an administrator trusts from files.

An agent such as Claude Code or Codex names itself by the URL of its metadata document; a server
without internet access cannot fetch it. `trust` stores the document from a file (checked as a
fetched one is), and the server then uses it for that URL without fetching; `list` shows what is
trusted and `untrust` forgets one. Each works while a server runs on the same data dir.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.accounts import with_services
from romergo.access.agents.document_fetch import MAX_DOCUMENT_BYTES
from romergo.common.config import Settings
from romergo.common.errors import invalid

if TYPE_CHECKING:
    from romergo.access.agents.trusted_documents import TrustedDocument
    from romergo.services import Services


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    client = commands.add_parser(
        "client", help="agents' metadata documents trusted from files (for servers without internet)"
    ).add_subparsers(dest="action", required=True)
    trust = client.add_parser(
        "trust", parents=[common], help="use the metadata document in FILE for URL instead of fetching it"
    )
    trust.add_argument("url", help="the agent's client_id: the https:// URL of its metadata document")
    trust.add_argument("--document", required=True, type=Path, help="the document, a JSON file")
    trust.set_defaults(run=client_trust)
    listed = client.add_parser("list", parents=[common], help="the trusted metadata documents")
    listed.set_defaults(run=client_list)
    untrust = client.add_parser("untrust", parents=[common], help="fetch URL's document again from now on")
    untrust.add_argument("url")
    untrust.set_defaults(run=client_untrust)


def client_trust(settings: Settings, args: argparse.Namespace) -> int:
    body = read_document(args.document)

    async def trust(services: Services) -> TrustedDocument:
        return await services.agents.trusted_documents.trust(args.url, body)

    trusted = with_services(settings, trust)
    print(f"Trusted {trusted.url} ({trusted.client_name}): Romergo uses this document, not the URL.")
    return 0


def client_list(settings: Settings, _args: argparse.Namespace) -> int:
    async def listed(services: Services) -> list[TrustedDocument]:
        return await services.agents.trusted_documents.listed()

    documents = with_services(settings, listed)
    if not documents:
        print("No metadata document is trusted.")
    for document in documents:
        print(f"{document.url}\t{document.client_name}\ttrusted {document.trusted_at:%Y-%m-%d %H:%M} UTC")
    return 0


def client_untrust(settings: Settings, args: argparse.Namespace) -> int:
    async def untrust(services: Services) -> None:
        await services.agents.trusted_documents.untrust(args.url)

    with_services(settings, untrust)
    print(f"{args.url} is no longer trusted: Romergo fetches its document again.")
    return 0


def read_document(path: Path) -> bytes:
    """The file's bytes, read no further than one byte past the largest document Romergo takes."""
    try:
        with path.open("rb") as file:
            return file.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as error:
        raise invalid(f"The document {path} cannot be read: {error.strerror}.") from None
