"""The table of invitations to join a story by a one-time link. Re-exported by `storage.tables`."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel


class Invitation(SQLModel, table=True):
    """A one-time link by which whoever opens it, signed in, joins a project in `role`.

    Only the SHA-256 of the link's secret is kept. `for_user_id` limits it to one account; used,
    revoked or past `expires_at`, it admits nobody."""

    __tablename__ = "invitations"
    id: str = Field(primary_key=True)
    project_id: str = Field(foreign_key="projects.id", index=True)
    role: str
    secret_hash: str = Field(unique=True)
    for_user_id: str | None = Field(default=None, foreign_key="users.id")
    created_by: str = Field(foreign_key="users.id")
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None = None
    used_by: str | None = Field(default=None, foreign_key="users.id")
    revoked_at: datetime | None = None
