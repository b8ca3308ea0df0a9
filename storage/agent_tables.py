"""The tables of agents' access: registered OAuth clients, the grants an author gave them, codes,
tokens and what each agent did last. Re-exported by `storage.tables`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel


class AgentClient(SQLModel, table=True):
    """An agent: an OAuth client from dynamic registration, or one personal access token.

    `name` is what the client said about itself (unverified). `registration` keeps the accepted
    registration metadata (RFC 7591) without any secret.
    """

    __tablename__ = "agent_clients"
    id: str = Field(primary_key=True)
    kind: str
    name: str
    user_id: str | None = Field(default=None, foreign_key="users.id", index=True)
    redirect_uris: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    scopes: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    registration: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime


class AgentGrant(SQLModel, table=True):
    """One user's consent to one client (or one personal token): the family of its codes and tokens.

    Revoking the grant kills every code and token issued under it at once.
    """

    __tablename__ = "agent_grants"
    id: str = Field(primary_key=True)
    user_id: str = Field(foreign_key="users.id", index=True)
    client_id: str = Field(foreign_key="agent_clients.id", index=True)
    kind: str
    scopes: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None
    last_used_at: datetime | None = None


class AgentAuthorization(SQLModel, table=True):
    """An `/authorize` request waiting for the user's answer on the consent page (single use)."""

    __tablename__ = "agent_authorizations"
    request_hash: str = Field(primary_key=True)
    client_id: str = Field(foreign_key="agent_clients.id")
    redirect_uri: str
    redirect_uri_explicit: bool
    state: str | None = None
    requested_scopes: list[str] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    code_challenge: str
    resource: str
    issuer: str | None = None
    """The issuer as the client named it (a loopback spelling of this server); None: the configured one."""
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None = None


class AgentCode(SQLModel, table=True):
    """An authorization code, stored as its SHA-256: bound to client, redirect URI, PKCE and resource."""

    __tablename__ = "agent_codes"
    code_hash: str = Field(primary_key=True)
    grant_id: str = Field(foreign_key="agent_grants.id", index=True)
    client_id: str
    redirect_uri: str
    redirect_uri_explicit: bool
    code_challenge: str
    resource: str
    scopes: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None = None


class AgentToken(SQLModel, table=True):
    """An access, refresh or personal token, stored as its SHA-256 only.

    A refresh token is used once (`used_at`); presenting it again revokes its grant.
    """

    __tablename__ = "agent_tokens"
    token_hash: str = Field(primary_key=True)
    kind: str
    grant_id: str = Field(foreign_key="agent_grants.id", index=True)
    client_id: str
    scopes: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    resource: str | None = None
    created_at: datetime
    expires_at: datetime | None = None
    used_at: datetime | None = None
    last_used_at: datetime | None = None


class AgentActivity(SQLModel, table=True):
    """One agent's last accepted and last refused tool call for one user (the settings page)."""

    __tablename__ = "agent_activity"
    user_id: str = Field(foreign_key="users.id", primary_key=True)
    client_id: str = Field(primary_key=True)
    last_accepted_tool: str | None = None
    last_accepted_at: datetime | None = None
    last_refused_tool: str | None = None
    last_refused_at: datetime | None = None
    last_refused_code: str | None = None


class TrustedClientDocument(SQLModel, table=True):
    """A client's metadata document an administrator stored from a file (`romergo client trust`).

    Romergo uses it for the client_id `url` instead of fetching the URL, so agents that name
    themselves by such a URL connect to a server without internet access.
    """

    __tablename__ = "trusted_client_documents"
    url: str = Field(primary_key=True)
    document: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    trusted_at: datetime


class AgentRead(SQLModel, table=True):
    """The revision of an entity an agent last read (or wrote): a later change by someone else that
    this agent's write then replaces is told to it. Entity ids are unique across types."""

    __tablename__ = "agent_reads"
    client_id: str = Field(primary_key=True)
    entity_id: str = Field(primary_key=True)
    revision: int
