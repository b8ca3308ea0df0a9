"""Dynamic client registration: who may register, what a client may ask for, and finding it again."""

from __future__ import annotations

from typing import Any

from romergo.access.agents import redirects
from romergo.access.agents.base import client_name
from romergo.access.agents.client_documents import ClientDocuments
from romergo.access.agents.document_rules import is_document_url
from romergo.access.agents.ledger import AgentClientRecord, ClientLedger
from romergo.access.agents.records import RegisteredClient, registered_client
from romergo.access.agents.scopes import OAUTH_SCOPES, ordered
from romergo.access.ratelimit import RateLimit
from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError, invalid

MAX_CLIENT_ID_CHARS = 100


class Clients:
    def __init__(self, ledger: ClientLedger, *, registrations: RateLimit, documents: ClientDocuments) -> None:
        self.ledger = ledger
        self.documents = documents
        """Clients that name themselves by the URL of their metadata document instead of registering."""
        self.registrations = registrations
        """Registration attempts per client address; the HTTP gate asks it before registering."""

    async def register(
        self,
        *,
        client_id: str,
        name: str | None,
        redirect_uris: list[str],
        scopes: list[str],
        registration: dict[str, Any],
    ) -> RegisteredClient:
        clean_name = client_name(name)
        uris = redirects.check_redirect_uris(redirect_uris)
        unknown = [scope for scope in scopes if scope not in OAUTH_SCOPES]
        if unknown:
            raise invalid(f"Agents can ask only for {', '.join(OAUTH_SCOPES)}; not {', '.join(unknown)}.")
        if not client_id or len(client_id) > MAX_CLIENT_ID_CHARS:
            raise invalid(f"A client id has 1 to {MAX_CLIENT_ID_CHARS} characters.")
        client = AgentClientRecord(
            id=client_id,
            name=clean_name,
            redirect_uris=tuple(uris),
            scopes=tuple(ordered(scopes or list(OAUTH_SCOPES))),
            registration=registration,
            created_at=utcnow(),
        )
        if not await self.ledger.register(client):
            raise RomergoError("conflict", "This client id is taken.")
        return registered_client(client)

    async def get(self, client_id: str) -> RegisteredClient | None:
        """An OAuth client; personal-token clients are not OAuth clients and are never returned."""
        try:
            return await self.find(client_id)
        except RomergoError:
            return None

    async def find(self, client_id: str) -> RegisteredClient | None:
        """Like `get`, but a metadata document that cannot be used raises, saying why."""
        if is_document_url(client_id):
            return await self.documents.resolve(client_id)
        if not isinstance(client_id, str) or not client_id or len(client_id) > MAX_CLIENT_ID_CHARS:
            return None
        client = await self.ledger.oauth_client(client_id)
        return registered_client(client) if client is not None else None
