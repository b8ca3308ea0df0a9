"""Registered agents (`agent_clients`) as the records the access ledgers hand up."""

from __future__ import annotations

from storage.access.records import AgentClientRecord
from storage.records import record_of
from storage.tables import AgentClient


def client_record(row: AgentClient) -> AgentClientRecord:
    return record_of(
        AgentClientRecord,
        row,
        redirect_uris=tuple(row.redirect_uris),
        scopes=tuple(row.scopes),
        registration=dict(row.registration),
    )
