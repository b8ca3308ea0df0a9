"""Client metadata documents an administrator trusts from a file, used instead of fetching them.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "trusted_client_documents",
        sa.Column("url", sa.String(), primary_key=True),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("trusted_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("trusted_client_documents")
