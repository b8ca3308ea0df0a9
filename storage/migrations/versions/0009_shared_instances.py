"""What several instances on one database share.

`server_settings` holds the server secret (it signs CSRF tokens and browser storage, so a form
rendered by one instance is accepted by another); `rate_counts` holds the rate limits' counts in
multi-instance mode, one row per key and window. On PostgreSQL that table is UNLOGGED: a count
lost in a crash costs nothing, and a write to it does not wait for the disk at commit.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_settings",
        sa.Column("name", sa.String(), primary_key=True),
        sa.Column("value", sa.String(), nullable=False),
    )
    op.create_table(
        "rate_counts",
        sa.Column("key", sa.String(), primary_key=True),
        sa.Column("period", sa.Integer(), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.Integer(), nullable=False),
    )
    op.create_index("ix_rate_counts_expires_at", "rate_counts", ["expires_at"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE rate_counts SET UNLOGGED")


def downgrade() -> None:
    op.drop_index("ix_rate_counts_expires_at", "rate_counts")
    op.drop_table("rate_counts")
    op.drop_table("server_settings")
