"""What the stand-in model does through a harness: the whole Builder loop, as a fixed script.

The script is a pure function of the tool results the harness has handed its model so far, in
whatever form the harness shows them (Romergo's text, its structured JSON, or the harness's own
wrapping of either). A harness resends the whole conversation with every request, so the next step
follows from the request alone: a retried request gets the same answer, and side requests (titles,
summaries) never move the script on.

The steps: join with the code, wait (asking for more than the maximum, so the wait is clamped; the
owner's command is already there), read the scene holding the hostile line, read the first page of
a long outline, rewrite a line, reply with a summary, wait again briefly, and say it is done.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

WAIT_ASKED = 900
"""More than the wait tool's maximum (50, or 600 for a call kept alive by progress notifications):
Romergo waits the maximum and says so."""
LAST_WAIT = 1
NEW_TEXT = "The lamps came on along the harbour, one by one."
DONE = "Done: the line is rewritten and the owner has my reply."


@dataclass(frozen=True)
class ToolCall:
    tool: str
    """Romergo's name for the tool; the harness may offer it under a prefixed name."""
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Answer:
    text: str


Step = ToolCall | Answer


@dataclass(frozen=True)
class Loop:
    code: str
    project_id: str
    scene_id: str
    line_id: str

    def step(self, results: Sequence[str]) -> Step:
        """The next step after `results`, the tool results so far, oldest first."""
        done = len(results)
        if done == 0:
            return ToolCall("romergo_join_builder_channel", {"code": self.code})
        joined = results[0]
        channel_id = field_value(joined, "channel_id")
        if done == 1:
            cursor = int(field_value(joined, "cursor"))
            return ToolCall(
                "romergo_wait_for_builder_command",
                {"channel_id": channel_id, "cursor": cursor, "timeout_seconds": WAIT_ASKED},
            )
        if done == 2:
            return ToolCall("romergo_get_scene", {"scene_id": self.scene_id})
        if done == 3:
            return ToolCall("romergo_get_project_outline", {"project_id": self.project_id})
        if done == 4:
            return ToolCall("romergo_update_dialogue_line", {"line_id": self.line_id, "text": NEW_TEXT})
        command_id = field_value(results[1], "command_id")
        if done == 5:
            return ToolCall(
                "romergo_report_builder_event",
                {
                    "command_id": command_id,
                    "kind": "reply",
                    "text": "I rewrote the line.",
                    "summary": {
                        "status": "success",
                        "description": "Rewrote one line of the opening scene.",
                        "changed_entities": [
                            {"type": "dialogue_line", "id": self.line_id, "title": "", "url": ""}
                        ],
                        "checks": [],
                        "links": [],
                    },
                },
            )
        if done == 6:
            return ToolCall(
                "romergo_wait_for_builder_command",
                {
                    "channel_id": channel_id,
                    "cursor": int(field_value(results[1], "cursor")),
                    "timeout_seconds": LAST_WAIT,
                },
            )
        return Answer(DONE)


def offered_name(tool: str, offered: Sequence[str]) -> str:
    """The name under which the harness offers Romergo's `tool` (`mcp__romergo__romergo_x`, ...)."""
    matches = [name for name in offered if name == tool or name.endswith(f"_{tool}")]
    if not matches:
        raise LookupError(f"{tool} is not among the tools offered: {sorted(offered)}")
    return min(matches, key=len)


def field_value(result: str, name: str) -> str:
    """A field's value in a result, in any of the forms a harness shows (JSON, quoted JSON, text)."""
    found = re.search(rf'{name}\\*"?\s*[:=]\s*\\*"?([A-Za-z0-9_-]+)', result)
    if found is None:
        raise LookupError(f"no {name} in {result[:500]!r}")
    return found.group(1)
