"""A published story's snapshot moves from `projects` to a table of its own.

At 2,000 scenes the snapshot is megabytes. As a column of `projects` it was loaded with every
project row and, on SQLite, written again by every UPDATE of the row (each edit stamps the
project's `updated_at`). Existing snapshots move across unchanged.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "published_stories",
        sa.Column("project_id", sa.String(), sa.ForeignKey("projects.id"), primary_key=True),
        sa.Column("snapshot", sa.JSON(), nullable=False),
    )
    op.execute(
        "INSERT INTO published_stories (project_id, snapshot) "
        "SELECT id, published_snapshot FROM projects WHERE published_snapshot IS NOT NULL"
    )
    with op.batch_alter_table("projects") as table:
        table.drop_column("published_snapshot")


def downgrade() -> None:
    with op.batch_alter_table("projects") as table:
        table.add_column(sa.Column("published_snapshot", sa.JSON(), nullable=True))
    op.execute(
        "UPDATE projects SET published_snapshot = "
        "(SELECT snapshot FROM published_stories WHERE published_stories.project_id = projects.id)"
    )
    op.drop_table("published_stories")
