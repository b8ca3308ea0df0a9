"""Storage: sqlmodel tables, the async engine with its transaction modes, migrations, wake-ups.

Never imports the core (`romergo`) or an adapter; the core imports this.
"""

from storage.database import Database

__all__ = ["Database"]
