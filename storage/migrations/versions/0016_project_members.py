"""A project's members and their roles: each existing project's owner becomes its one member.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "project_members",
        sa.Column("project_id", sa.String(), sa.ForeignKey("projects.id"), primary_key=True),
        sa.Column("user_id", sa.String(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("added_by", sa.String(), sa.ForeignKey("users.id"), nullable=True),
    )
    op.create_index("ix_project_members_user_id", "project_members", ["user_id"])
    # Deleted projects too: their owner may still be asked who they were.
    op.execute(
        "INSERT INTO project_members (project_id, user_id, role, added_at, added_by) "
        "SELECT id, owner_id, 'owner', created_at, owner_id FROM projects"
    )


def downgrade() -> None:
    op.drop_index("ix_project_members_user_id", table_name="project_members")
    op.drop_table("project_members")
