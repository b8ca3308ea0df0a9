"""Storage: sqlmodel tables, the async engine with its transaction modes, and Alembic migrations.

Wake-ups are not here: the core publishes them on its in-process bus (`romergo.common.bus`) after a commit.

Never imports the core (`romergo`) or an adapter; the core imports this.
"""

from storage.database import Database

__all__ = ["Database"]
