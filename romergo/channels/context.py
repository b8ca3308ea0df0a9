"""The context a command carries: where the owner was and what they had selected.

It travels to the agent as untrusted data (CONTRACT.md §3), so here it is only checked for shape
and size; nothing in it is ever treated as an instruction.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from romergo.channels.vocabulary import ENTITY_TYPES, SURFACES
from romergo.common import urls
from romergo.common.clock import iso
from romergo.common.config import Limits
from romergo.common.errors import invalid

CONTEXT_KEYS = ("route", "project_id", "chapter_id", "scene_id", "surface", "captured_at", "selection")
SELECTION_KEYS = ("text", "entity_type", "entity_id", "start", "end")
MAX_ROUTE_CHARS = 500
MAX_ID_CHARS = 64


def clean_context(raw: object, project_id: str, limits: Limits, now: datetime) -> dict[str, Any]:
    """A complete context dict for the channel's project; defaults where the caller gave none."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise invalid("context must be an object.")
    unknown = sorted(set(raw) - set(CONTEXT_KEYS))
    if unknown:
        raise invalid(f"context has unknown fields: {', '.join(unknown)}.")
    given_project = _optional_id(raw.get("project_id"), "context.project_id")
    if given_project is not None and given_project != project_id:
        raise invalid("context.project_id must be the channel's project.")
    surface = raw.get("surface", "project")
    if surface not in SURFACES:
        raise invalid(f"context.surface must be one of {', '.join(SURFACES)}.")
    route = raw.get("route", urls.project(project_id))
    if not isinstance(route, str) or not route.startswith("/") or len(route) > MAX_ROUTE_CHARS:
        raise invalid(
            f"context.route must be a path starting with / of at most {MAX_ROUTE_CHARS} characters."
        )
    captured_at = raw.get("captured_at") or iso(now)
    if not isinstance(captured_at, str) or len(captured_at) > 40:
        raise invalid("context.captured_at must be an ISO 8601 time.")
    return {
        "route": route,
        "project_id": project_id,
        "chapter_id": _optional_id(raw.get("chapter_id"), "context.chapter_id"),
        "scene_id": _optional_id(raw.get("scene_id"), "context.scene_id"),
        "surface": surface,
        "captured_at": captured_at,
        "selection": _selection(raw.get("selection"), limits),
    }


def _selection(raw: object, limits: Limits) -> dict[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise invalid("context.selection must be an object or null.")
    unknown = sorted(set(raw) - set(SELECTION_KEYS))
    if unknown:
        raise invalid(f"context.selection has unknown fields: {', '.join(unknown)}.")
    text = raw.get("text", "")
    if not isinstance(text, str) or len(text) > limits.max_line_chars:
        raise invalid(f"context.selection.text must be text of at most {limits.max_line_chars} characters.")
    entity_type = raw.get("entity_type")
    if entity_type is not None and entity_type not in ENTITY_TYPES:
        raise invalid(f"context.selection.entity_type must be one of {', '.join(ENTITY_TYPES)}.")
    start, end = _offsets(raw.get("start"), raw.get("end"))
    return {
        "text": text,
        "entity_type": entity_type,
        "entity_id": _optional_id(raw.get("entity_id"), "context.selection.entity_id"),
        "start": start,
        "end": end,
    }


def _offsets(start: object, end: object) -> tuple[int | None, int | None]:
    for name, value in (("start", start), ("end", end)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise invalid(f"context.selection.{name} must be a whole number of 0 or more.")
    if isinstance(start, int) and isinstance(end, int) and start > end:
        raise invalid("context.selection.start must not be after its end.")
    return start, end  # type: ignore[return-value]  # checked above


def _optional_id(value: object, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value or len(value) > MAX_ID_CHARS:
        raise invalid(f"{name} must be an id (text of at most {MAX_ID_CHARS} characters) or null.")
    return value
