"""When each grant was last used (the settings page's "last used"), written a few at a time.

The bearer check runs on every MCP call. It notes the moment here (`agents.noted`), at most once a
minute per grant (`agents.base.TOUCH_EVERY`), and every `WRITE_EVERY_SECONDS` one write stamps
every grant noted since. `Grants.connections` lays what is not written yet over what it reads.
"""

from __future__ import annotations

from datetime import datetime

from romergo.access.agents.ledger import GrantLedger
from romergo.access.agents.noted import NotedWrites

WRITE_EVERY_SECONDS = 5.0


def last_uses(ledger: GrantLedger) -> NotedWrites[str, datetime]:
    """Grant id → the moment it was used. A grant noted already keeps that moment: the first use
    after a stamp is the one to write."""
    return NotedWrites(
        ledger.stamp_last_uses, every=WRITE_EVERY_SECONDS, keep_first=True, what="grant stamps"
    )
