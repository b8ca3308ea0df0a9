"""Confirmations: actions waiting for the owner, bound to command, tool and argument fingerprint.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "confirmations",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("channel_id", sa.String(), sa.ForeignKey("channels.id"), nullable=False),
        sa.Column("command_id", sa.String(), sa.ForeignKey("commands.id"), nullable=False),
        sa.Column("client_id", sa.String(), nullable=False),
        sa.Column("tool", sa.String(), nullable=False),
        sa.Column("arguments", sa.JSON(), nullable=False),
        sa.Column("fingerprint", sa.String(), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_confirmations_channel_id", "confirmations", ["channel_id"])
    op.create_index("ix_confirmations_match", "confirmations", ["command_id", "tool", "fingerprint"])


def downgrade() -> None:
    op.drop_table("confirmations")
