"""When each grant was last used (the settings page's "last used"), written a few at a time.

The bearer check runs on every MCP call. It notes the moment here (`agents.noted`), at most once a
minute per grant (`agents.base.TOUCH_EVERY`), and every `WRITE_EVERY_SECONDS` one write stamps
every grant noted since. `Grants.connections` lays what is not written yet over what it reads.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, update

from romergo.agents.noted import NotedWrites
from storage import Database
from storage.core_tables import AGENT_GRANTS

WRITE_EVERY_SECONDS = 5.0


def last_uses(db: Database) -> NotedWrites[str, datetime]:
    """Grant id → the moment it was used. A grant noted already keeps that moment: the first use
    after a stamp is the one to write."""
    return NotedWrites(db, _STAMP, _stamp, every=WRITE_EVERY_SECONDS, keep_first=True, what="grant stamps")


def _stamp(grant_id: str, at: datetime) -> dict[str, Any]:
    return {"grant_id": grant_id, "at": at}


_STAMP = (
    update(AGENT_GRANTS)
    .where(AGENT_GRANTS.c.id == bindparam("grant_id"))
    .values(last_used_at=bindparam("at"))
)
