"""Alembic environment: always run from `storage.migrate` with a connection handed over."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import storage.tables  # noqa: F401 - registers the tables on SQLModel.metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
