"""Registered agents (`agent_clients`) as the records the access ledgers hand up.

A client's `kind` says how it came: `oauth` (dynamic registration), `cimd` (the URL of its
metadata document) or `personal` (the client of one personal access token)."""

from __future__ import annotations

from storage.access.records import AgentClientRecord
from storage.database import Database
from storage.records import columns_of, record_of
from storage.tables import AgentClient


class StoredClients:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def register(self, client: AgentClientRecord) -> bool:
        """Keeps a new OAuth client; False (and nothing kept) if its id is taken."""
        async with self.db.write() as session:
            if await session.get(AgentClient, client.id) is not None:
                return False
            session.add(_row(client, kind="oauth"))
            return True

    async def oauth_client(self, client_id: str) -> AgentClientRecord | None:
        """The OAuth client of that id; None if there is none, or it is a personal token's or a
        metadata document's."""
        async with self.db.read() as session:
            row = await session.get(AgentClient, client_id)
        return client_record(row) if row is not None and row.kind == "oauth" else None

    async def keep_document_client(self, client: AgentClientRecord) -> AgentClientRecord | None:
        """Keeps the client of a metadata document, or refreshes its name, redirect URIs, scopes
        and registration (its creation stays); None (nothing kept) if a client of another kind
        holds the id."""
        async with self.db.write() as session:
            row = await session.get(AgentClient, client.id)
            if row is not None and row.kind != "cimd":
                return None
            if row is None:
                row = _row(client, kind="cimd")
                session.add(row)
            else:
                row.name, row.redirect_uris = client.name, list(client.redirect_uris)
                row.scopes, row.registration = list(client.scopes), dict(client.registration)
            return client_record(row)


def client_record(row: AgentClient) -> AgentClientRecord:
    return record_of(
        AgentClientRecord,
        row,
        redirect_uris=tuple(row.redirect_uris),
        scopes=tuple(row.scopes),
        registration=dict(row.registration),
    )


def _row(client: AgentClientRecord, *, kind: str) -> AgentClient:
    columns = columns_of(client)
    columns.update(
        redirect_uris=list(client.redirect_uris),
        scopes=list(client.scopes),
        registration=dict(client.registration),
    )
    return AgentClient(kind=kind, **columns)
