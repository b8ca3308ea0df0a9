"""Client metadata documents an administrator trusts from a file (`romergo client trust`).

Claude Code and Codex name themselves by the URL of a metadata document on the internet; a server
that cannot reach it refuses them. An administrator who has the document (fetched elsewhere, or
from the agent's vendor) stores it here, and Romergo then uses it for that client_id without
fetching: a trusted document wins over the URL, so an agent connects the same way online and
offline, and a document the administrator checked is not replaced by whatever the URL says later.
It gets the checks a fetched document gets (`document_rules`) and must be named by an https:// URL.

Untrusting a document stops new sign-ins and token refreshes of that agent unless its URL can be
fetched; access tokens already issued run until they expire, or until the author revokes the agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from romergo.access.agents.base import client_name
from romergo.access.agents.document_rules import checked_document, keep_client, url_problem
from romergo.access.agents.ledger import ClientLedger, TrustedDocumentLedger, TrustedDocumentRecord
from romergo.access.agents.records import RegisteredClient, registered_client
from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError, invalid


@dataclass(frozen=True)
class TrustedDocument:
    url: str
    client_name: str
    trusted_at: datetime


class TrustedDocuments:
    def __init__(self, ledger: TrustedDocumentLedger, clients: ClientLedger) -> None:
        self.ledger = ledger
        self.clients = clients
        """Where `keep_client` keeps the client a trusted document describes."""

    async def trust(self, url: str, body: bytes) -> TrustedDocument:
        """Check the document in `body` as if fetched from `url`, then use it instead of fetching."""
        problem = url_problem(url, allow_private=False)
        if problem is not None:
            raise invalid(problem)
        document = checked_document(url, body)
        client = await keep_client(self.clients, url, document)
        trusted_at = utcnow()
        await self.ledger.keep(url, document, trusted_at)
        return TrustedDocument(url, client.name, trusted_at)

    async def untrust(self, url: str) -> None:
        if not await self.ledger.forget(url):
            raise RomergoError("not_found", f"{url} is not trusted.")

    async def listed(self) -> list[TrustedDocument]:
        return [TrustedDocument(row.url, _name(row), row.trusted_at) for row in await self.ledger.listed()]

    async def client(self, url: str) -> RegisteredClient | None:
        """The client a trusted document describes, or None when `url`'s document is not trusted."""
        found = await self.ledger.with_client(url)
        if found is None:
            return None
        trusted, kept = found
        if kept is not None and kept.registration == trusted.document:
            return registered_client(kept)
        return await keep_client(self.clients, url, trusted.document)


def _name(row: TrustedDocumentRecord) -> str:
    """The name the document gives itself (as on the consent page), else its host."""
    return client_name(row.document.get("client_name") or urlsplit(row.url).hostname)
