"""Accounts at the team's OpenID Connect provider, linked to users by (issuer, subject).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "provider_identities",
        sa.Column("issuer", sa.String(), primary_key=True),
        sa.Column("subject", sa.String(), primary_key=True),
        sa.Column("user_id", sa.String(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("linked_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_provider_identities_user_id", "provider_identities", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_provider_identities_user_id", table_name="provider_identities")
    op.drop_table("provider_identities")
