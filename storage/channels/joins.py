"""How a room meets the membership of the client that calls: built once, shared by the wait's
check, the report, the caller's rooms and the agent's own reads."""

from __future__ import annotations

from sqlalchemy import bindparam

from storage.core_tables import CHANNEL_MEMBERS, CHANNELS

CALLERS_MEMBERSHIP = (CHANNEL_MEMBERS.c.channel_id == CHANNELS.c.id) & (
    CHANNEL_MEMBERS.c.client_id == bindparam("who")
)
"""The join condition of a channel to the membership of the client bound as `who` (on the tables,
so the entity selects and the row selects share it)."""
