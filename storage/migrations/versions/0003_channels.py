"""Channels: rooms with join codes, members, commands and the numbered event history.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "channels",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("user_id", sa.String(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("project_id", sa.String(), sa.ForeignKey("projects.id"), nullable=False),
        sa.Column("code_hash", sa.String(), nullable=False),
        sa.Column("code_issued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("permissions", sa.JSON(), nullable=False),
        sa.Column("confirmation_mode", sa.String(), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("end_reason", sa.String(), nullable=True),
    )
    op.create_index("ix_channels_user_id", "channels", ["user_id"])
    op.create_index("ix_channels_project_id", "channels", ["project_id"])
    op.create_index("ix_channels_code_hash", "channels", ["code_hash"])

    op.create_table(
        "channel_members",
        sa.Column("channel_id", sa.String(), sa.ForeignKey("channels.id"), primary_key=True),
        sa.Column("client_id", sa.String(), primary_key=True),
        sa.Column("agent_name", sa.String(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("left_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("polling_until", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_channel_members_client_id", "channel_members", ["client_id"])

    op.create_table(
        "commands",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("channel_id", sa.String(), sa.ForeignKey("channels.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("text", sa.String(), nullable=False),
        sa.Column("context", sa.JSON(), nullable=True),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("claimed_by", sa.String(), nullable=True),
        sa.Column("reserved_for", sa.String(), nullable=True),
        sa.Column("in_reply_to", sa.String(), nullable=True),
        sa.Column("retry_of", sa.String(), nullable=True),
        sa.Column("deliveries", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_activity_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_commands_channel_state", "commands", ["channel_id", "state", "seq"])
    op.create_index("ix_commands_claimed_by", "commands", ["claimed_by"])

    op.create_table(
        "channel_events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("channel_id", sa.String(), sa.ForeignKey("channels.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("command_id", sa.String(), nullable=True),
        sa.Column("actor_type", sa.String(), nullable=False),
        sa.Column("actor_id", sa.String(), nullable=False),
        sa.Column("actor_name", sa.String(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ux_channel_events_seq", "channel_events", ["channel_id", "seq"], unique=True)


def downgrade() -> None:
    for table in ("channel_events", "commands", "channel_members", "channels"):
        op.drop_table(table)
