"""Alembic migrations, written by hand in portable operations (SQLite and PostgreSQL)."""
