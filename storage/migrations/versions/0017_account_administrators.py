"""Accounts an administrator manages: who is an administrator, and who is deactivated.

The oldest account of an existing install becomes its administrator, as the first account of a
new one is.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("administrator", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("deactivated_at", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        "UPDATE users SET administrator = true "
        "WHERE id = (SELECT id FROM users ORDER BY created_at, id LIMIT 1)"
    )


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("deactivated_at")
        batch.drop_column("administrator")
