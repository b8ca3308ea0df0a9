"""A wait's statements (`storage.channels.wait_checks`), built once for the states this service
names: commands wait queued, a claim leaves them as `next_state` says, and their agent holds them
in the held states."""

from __future__ import annotations

from romergo.channels.vocabulary import HELD_STATES, CommandState, EventKind, next_state
from storage.channels.wait_checks import wait_statements

STATEMENTS = wait_statements(
    CommandState.QUEUED.value,
    next_state(CommandState.QUEUED, EventKind.CLAIMED).value,
    tuple(state.value for state in HELD_STATES),
)
