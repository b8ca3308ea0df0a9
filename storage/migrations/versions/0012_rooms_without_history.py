"""Indexes that find an agent's rooms and held command, and the sweeper's work, without walking history.

An agent's OAuth client keeps its id across rooms, so the rooms it joined and the commands it
claimed pile up for as long as it is used; an owner's rooms pile up too. Every tool call reads the
caller's current rooms, and every wait's check the command it holds in the room. With indexes on
one column each, SQLite led with `commands.claimed_by` and walked every command the client ever
took (22,000 steps a check after 2,000 commands), and read the current rooms through every room the
client joined, then every room the owner opened (tests/romergo/test_channels_history.py).

- `ix_commands_channel_claimer` (channel, client, state, seq) replaces `ix_commands_claimed_by`:
  no query asks for a client's commands across rooms.
- `ix_channels_owner_open` (owner, ended_at, expires_at) replaces `ix_channels_user_id`: the
  owner's rooms still open.
- `ix_channels_project_owner_newest` (project, owner, created_at, id) replaces
  `ix_channels_project_id`: a project's rooms, newest first.

The sweeper (every few seconds on every instance, in a write transaction) looked for commands whose
lease ran out, rooms that expired and confirmations that expired by reading every command, room and
confirmation there ever was: 22,000 steps a sweep with 2,000 of each. New indexes lead to the few
still open: `ix_commands_lease` (state, last_activity_at), `ix_channels_open_expiry` (ended_at,
expires_at) and `ix_confirmations_open_expiry` (state, expires_at).

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

_NEW = {
    "ix_commands_channel_claimer": ("commands", ["channel_id", "claimed_by", "state", "seq"]),
    "ix_channels_owner_open": ("channels", ["user_id", "ended_at", "expires_at"]),
    "ix_channels_project_owner_newest": ("channels", ["project_id", "user_id", "created_at", "id"]),
    "ix_commands_lease": ("commands", ["state", "last_activity_at"]),
    "ix_channels_open_expiry": ("channels", ["ended_at", "expires_at"]),
    "ix_confirmations_open_expiry": ("confirmations", ["state", "expires_at"]),
}
_OLD = {
    "ix_commands_claimed_by": ("commands", ["claimed_by"]),
    "ix_channels_user_id": ("channels", ["user_id"]),
    "ix_channels_project_id": ("channels", ["project_id"]),
}


def upgrade() -> None:
    for name, (table, columns) in _NEW.items():
        op.create_index(name, table, columns)
    for name, (table, _) in _OLD.items():
        op.drop_index(name, table_name=table)


def downgrade() -> None:
    for name, (table, columns) in _OLD.items():
        op.create_index(name, table, columns)
    for name, (table, _) in _NEW.items():
        op.drop_index(name, table_name=table)
