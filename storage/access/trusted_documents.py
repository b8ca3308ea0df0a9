"""Client metadata documents an administrator trusts from a file (`trusted_client_documents`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import col, select

from storage.access.clients import client_record
from storage.access.records import AgentClientRecord, TrustedDocumentRecord
from storage.database import Database
from storage.tables import AgentClient, TrustedClientDocument


class StoredTrustedDocuments:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def keep(self, url: str, document: dict[str, Any], trusted_at: datetime) -> None:
        """Trusts `document` for `url`, replacing one trusted before."""
        async with self.db.write() as session:
            row = await session.get(TrustedClientDocument, url)
            if row is None:
                session.add(TrustedClientDocument(url=url, document=document, trusted_at=trusted_at))
            else:
                row.document, row.trusted_at = document, trusted_at

    async def forget(self, url: str) -> bool:
        """Stops trusting `url`'s document; False if none was trusted."""
        async with self.db.write() as session:
            row = await session.get(TrustedClientDocument, url)
            if row is None:
                return False
            await session.delete(row)
            return True

    async def listed(self) -> list[TrustedDocumentRecord]:
        """Every trusted document, by URL."""
        async with self.db.read() as session:
            by_url = select(TrustedClientDocument).order_by(col(TrustedClientDocument.url))
            rows = (await session.exec(by_url)).all()
        return [TrustedDocumentRecord(row.url, row.document, row.trusted_at) for row in rows]

    async def with_client(self, url: str) -> tuple[TrustedDocumentRecord, AgentClientRecord | None] | None:
        """The document trusted for `url` and the client kept under that id (None if none is),
        read as one snapshot; None if no document is trusted for `url`."""
        async with self.db.read() as session:
            trusted = await session.get(TrustedClientDocument, url)
            kept = await session.get(AgentClient, url) if trusted is not None else None
        if trusted is None:
            return None
        document = TrustedDocumentRecord(trusted.url, trusted.document, trusted.trusted_at)
        return document, None if kept is None else client_record(kept)
