"""Revisions know the write they came from and what they undo: the base of undo and redo.

`batch_id` groups the revisions of one transaction (one change as the author made it); `reverts`
names what a batch undid (`command:<id>` or `batch:<id>`). Older revisions have neither.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("revisions") as table:
        table.add_column(sa.Column("batch_id", sa.String(), nullable=True))
        table.add_column(sa.Column("reverts", sa.String(), nullable=True))
        table.create_index("ix_revisions_batch_id", ["batch_id"])
        table.create_index("ix_revisions_reverts", ["reverts"])
        table.create_index("ix_revisions_entity", ["project_id", "entity_type", "entity_id", "id"])


def downgrade() -> None:
    with op.batch_alter_table("revisions") as table:
        table.drop_index("ix_revisions_entity")
        table.drop_index("ix_revisions_reverts")
        table.drop_index("ix_revisions_batch_id")
        table.drop_column("reverts")
        table.drop_column("batch_id")
