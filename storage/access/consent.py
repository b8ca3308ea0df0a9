"""Consent requests (`agent_authorizations`) and the user's answer: a grant and a code, or nothing."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import update
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.access.clients import client_record
from storage.access.grants import grant_row
from storage.access.records import AgentClientRecord, AuthorizationRequest
from storage.database import Database
from storage.tables import AgentAuthorization, AgentClient, AgentCode


class StoredConsent:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def add_request(self, request: AuthorizationRequest) -> None:
        async with self.db.write() as session:
            session.add(
                AgentAuthorization(
                    request_hash=request.request_hash,
                    client_id=request.client_id,
                    redirect_uri=request.redirect_uri,
                    redirect_uri_explicit=request.redirect_uri_explicit,
                    state=request.state,
                    requested_scopes=None
                    if request.requested_scopes is None
                    else list(request.requested_scopes),
                    code_challenge=request.code_challenge,
                    resource=request.resource,
                    issuer=request.issuer,
                    created_at=request.created_at,
                    expires_at=request.expires_at,
                )
            )

    async def waiting(
        self, request_hash: str, now: datetime
    ) -> tuple[AuthorizationRequest, AgentClientRecord] | None:
        """The request, unanswered and unexpired at `now`, with its client; else None."""
        async with self.db.read() as session:
            row = await session.get(AgentAuthorization, request_hash)
            if row is None or row.decided_at is not None or row.expires_at <= now:
                return None
            client = await session.get(AgentClient, row.client_id)
        if client is None:
            return None
        return _request(row), client_record(client)

    async def approve(
        self,
        request_hash: str,
        now: datetime,
        *,
        grant_id: str,
        user_id: str,
        scopes: list[str],
        code_hash: str,
        code_expires_at: datetime,
    ) -> bool:
        """Answers the request with a grant of `scopes` and a code under it, bound to the request's
        redirect URI, PKCE challenge and resource, in one transaction. False (nothing kept) if it
        was answered already or has expired."""
        async with self.db.write() as session:
            row = await _decide(session, request_hash, now)
            if row is None:
                return False
            session.add(
                grant_row(
                    grant_id=grant_id,
                    user_id=user_id,
                    client_id=row.client_id,
                    kind="oauth",
                    scopes=scopes,
                    now=now,
                )
            )
            await session.flush()
            session.add(
                AgentCode(
                    code_hash=code_hash,
                    grant_id=grant_id,
                    client_id=row.client_id,
                    redirect_uri=row.redirect_uri,
                    redirect_uri_explicit=row.redirect_uri_explicit,
                    code_challenge=row.code_challenge,
                    resource=row.resource,
                    scopes=scopes,
                    created_at=now,
                    expires_at=code_expires_at,
                )
            )
            return True

    async def deny(self, request_hash: str, now: datetime) -> bool:
        """Answers the request with no; False if it was answered already or has expired."""
        async with self.db.write() as session:
            return await _decide(session, request_hash, now) is not None


async def _decide(session: AsyncSession, request_hash: str, now: datetime) -> AgentAuthorization | None:
    """Marks the request answered in the caller's transaction; of two answers only one wins."""
    result = await session.exec(
        update(AgentAuthorization)
        .where(
            col(AgentAuthorization.request_hash) == request_hash,
            col(AgentAuthorization.decided_at).is_(None),
            col(AgentAuthorization.expires_at) > now,
        )
        .values(decided_at=now)
        .returning(AgentAuthorization)
    )
    row = result.scalar_one_or_none()
    assert row is None or isinstance(row, AgentAuthorization)
    return row


def _request(row: AgentAuthorization) -> AuthorizationRequest:
    return AuthorizationRequest(
        request_hash=row.request_hash,
        client_id=row.client_id,
        redirect_uri=row.redirect_uri,
        redirect_uri_explicit=row.redirect_uri_explicit,
        state=row.state,
        requested_scopes=None if row.requested_scopes is None else tuple(row.requested_scopes),
        code_challenge=row.code_challenge,
        resource=row.resource,
        issuer=row.issuer,
        created_at=row.created_at,
        expires_at=row.expires_at,
    )
