"""The open transaction of a unit of work, as the core holds it: it hands it back to the reads
that belong inside that transaction, and does nothing else with it."""

from __future__ import annotations

from sqlmodel import Session
from sqlmodel.ext.asyncio.session import AsyncSession

Transaction = AsyncSession
"""A unit of work's session, on the event loop."""

ThreadRead = Session
"""A read's session off the event loop (`Database.read_in_thread`)."""
