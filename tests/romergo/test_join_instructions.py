"""What a joining agent is told: fixed text, and every part of it reads as written."""

from __future__ import annotations

import re

from romergo.channels.instructions import JOIN_INSTRUCTIONS
from romergo.channels.waiting import MAX_KEPT_ALIVE_WAIT, MAX_WAIT


def test_the_escape_form_is_shown_as_agents_will_meet_it():
    assert "shown as \\u{hex};" in JOIN_INSTRUCTIONS
    assert not re.search(r"<built-in|<function|\{[a-z_]+\}(?<!\{hex\})", JOIN_INSTRUCTIONS), JOIN_INSTRUCTIONS


def test_the_wait_lengths_named_are_the_ones_romergo_serves():
    assert f"timeout_seconds {MAX_KEPT_ALIVE_WAIT} in Claude Code, Gemini CLI" in " ".join(
        JOIN_INSTRUCTIONS.split()
    )
    assert f"{MAX_WAIT} in Codex" in JOIN_INSTRUCTIONS
