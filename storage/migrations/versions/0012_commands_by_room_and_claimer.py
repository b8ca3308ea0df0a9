"""A client's commands are found through their room: the index on `claimed_by` alone goes.

An agent's OAuth client keeps its id across rooms, so its claimed commands pile up for as long
as it is used. Every wait's check looks for the one command the client holds in the room
(`channel_id`, `claimed_by`, a held state); with an index on `claimed_by` alone SQLite chose that
index and walked every command the client ever took: 22,000 steps a check after 2,000 commands
(tests/romergo/test_channels_history.py). The index that replaces it leads to the room first.
No query asks for a client's commands across rooms.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_commands_channel_claimer", "commands", ["channel_id", "claimed_by", "state", "seq"])
    op.drop_index("ix_commands_claimed_by", table_name="commands")


def downgrade() -> None:
    op.create_index("ix_commands_claimed_by", "commands", ["claimed_by"])
    op.drop_index("ix_commands_channel_claimer", table_name="commands")
