"""The room's reach and the proof that an agent stopped.

`channels.scope` limits a room to chosen chapters (null: the whole project);
`channel_members.left_reason` says why a member left (`left`, `removed`, `revoked`), so a removed
agent cannot rejoin with the same code; `agent_activity` keeps each agent's last accepted and last
refused call for the settings page.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("channels") as table:
        table.add_column(sa.Column("scope", sa.JSON(), nullable=True))
    with op.batch_alter_table("channel_members") as table:
        table.add_column(sa.Column("left_reason", sa.String(), nullable=True))
    op.create_table(
        "agent_activity",
        sa.Column("user_id", sa.String(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("client_id", sa.String(), primary_key=True),
        sa.Column("last_accepted_tool", sa.String(), nullable=True),
        sa.Column("last_accepted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_refused_tool", sa.String(), nullable=True),
        sa.Column("last_refused_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_refused_code", sa.String(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("agent_activity")
    with op.batch_alter_table("channel_members") as table:
        table.drop_column("left_reason")
    with op.batch_alter_table("channels") as table:
        table.drop_column("scope")
