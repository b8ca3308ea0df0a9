"""When each grant was last used (the settings page's "last used"), written a few at a time.

The bearer check runs on every MCP call and used to write a grant's stamp itself, at most once a
minute per grant: with a thousand agents re-polling their waits that is a write transaction every
tenth of a second, each waiting its turn on the database file (issue 16, docs/performance.md).
The check now notes the moment here, and every `WRITE_EVERY_SECONDS` one write stamps every grant
noted since. What this process has noted and not written yet is merged into what it reads
(`Grants.connections`), so its own settings page is never behind; another instance's page may be,
by that long. A stamp noted when the process dies is lost: the settings page shows an older use. A
write that fails, or that a clean stop interrupts, keeps its stamps for the next one.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime

from sqlalchemy import bindparam, update

from storage import Database
from storage.core_tables import AGENT_GRANTS

logger = logging.getLogger(__name__)

WRITE_EVERY_SECONDS = 5.0


class LastUses:
    """Stamps noted by the bearer check, and the task that writes them."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._noted: dict[str, datetime] = {}
        self._in_write: dict[str, datetime] = {}
        """Taken by the write under way: still shown until it is committed."""
        self._writing: asyncio.Task[None] | None = None

    def note(self, grant_id: str, at: datetime) -> None:
        """The grant was used at `at`; written within `WRITE_EVERY_SECONDS`. A grant noted already
        keeps that moment: stamps are kept to one a minute (`agents.base.TOUCH_EVERY`)."""
        self._noted.setdefault(grant_id, at)
        if self._writing is None or self._writing.done():
            self._writing = asyncio.get_running_loop().create_task(self._later(), name="grant stamps")

    def noted(self, grant_id: str) -> datetime | None:
        """The grant's use noted here and not written yet."""
        return self._noted.get(grant_id) or self._in_write.get(grant_id)

    async def write(self) -> None:
        """Every stamp noted so far, in one write."""
        if not self._noted:
            return
        self._in_write, self._noted = self._noted, {}
        stamps = [{"grant_id": grant_id, "at": at} for grant_id, at in self._in_write.items()]
        try:
            await self.db.write_rows(lambda rows: rows.run_many(_STAMP, stamps))
        except BaseException:
            # Not written (it failed, or a stop cancelled it): kept for the next write. A grant
            # noted again meanwhile keeps that later moment.
            for grant_id, at in self._in_write.items():
                self._noted.setdefault(grant_id, at)
            raise
        finally:
            self._in_write = {}

    async def close(self) -> None:
        """Write what is noted now (a clean stop), instead of after the wait. A write under way is
        stopped first: what it had taken comes back (`write`) and goes in this one."""
        writing = self._writing
        if writing is not None and not writing.done():
            writing.cancel()
            await asyncio.gather(writing, return_exceptions=True)
        await self.write()

    async def _later(self) -> None:
        # Until nothing is left: what was noted while a write was under way goes in the next one.
        while self._noted:
            await asyncio.sleep(WRITE_EVERY_SECONDS)
            try:
                await self.write()
            except Exception:  # the calls were answered; only the settings page's "last used" is behind
                logger.exception("Writing when grants were last used failed")
                return


_STAMP = (
    update(AGENT_GRANTS)
    .where(AGENT_GRANTS.c.id == bindparam("grant_id"))
    .values(last_used_at=bindparam("at"))
)
