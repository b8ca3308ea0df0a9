"""An agent's listening, as its membership row keeps it (`last_seen_at`, `polling_until`).

Built once: a wait's check writes the presence with `PRESENCE` inside its own transaction, and
the ledger clears it with the same statement or, for a wait that ran out, with `RUN_OUT`.
"""

from __future__ import annotations

from sqlalchemy import bindparam, update

from storage.core_tables import CHANNEL_MEMBERS

PRESENCE = (
    update(CHANNEL_MEMBERS)
    .where(
        CHANNEL_MEMBERS.c.channel_id == bindparam("channel"), CHANNEL_MEMBERS.c.client_id == bindparam("who")
    )
    .values(last_seen_at=bindparam("seen"), polling_until=bindparam("until"))
)
"""The agent was seen now (`seen`) and listens until `until` (None: no longer)."""
RUN_OUT = PRESENCE.where(CHANNEL_MEMBERS.c.polling_until <= bindparam("ran_out"))
"""A timed-out wait's late clear: not a later wait's presence (another instance's, say)."""
