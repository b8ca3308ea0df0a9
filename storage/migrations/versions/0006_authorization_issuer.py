"""A pending authorization remembers the issuer its client named (a loopback spelling of this server).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agent_authorizations") as table:
        table.add_column(sa.Column("issuer", sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("agent_authorizations") as table:
        table.drop_column("issuer")
