"""What the server itself recorded for a command (its Revisions), and how that compares with
what the agent says it changed (the reply's summary)."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from romergo.channels.events import EntityKey, SummaryMismatch
from romergo.channels.summary import Summary
from romergo.clock import iso
from storage.tables import Choice, DialogueLine, Revision

TITLE_KEYS = ("title", "name", "label", "text")


async def command_changes(session: AsyncSession, command_id: str) -> list[dict[str, Any]]:
    rows = (
        await session.exec(
            select(Revision).where(Revision.command_id == command_id).order_by(col(Revision.id))
        )
    ).all()
    return [
        {
            "entity_type": row.entity_type,
            "entity_id": row.entity_id,
            "title": _title(row),
            "action": row.action,
            "before": row.before,
            "after": row.after,
            "tool": row.tool,
            "at": iso(row.created_at),
        }
        for row in rows
    ]


async def summary_mismatch(
    session: AsyncSession, recorded: list[dict[str, Any]], summary: Summary
) -> SummaryMismatch | None:
    """None when the summary's changed entities match what was recorded, else both differences.

    A change to a dialogue line or a choice counts as a change of its scene too (CONTRACT.md §4).
    """
    claimed = {(e.type, e.id) for e in summary.changed_entities}
    scene_of_recorded = {(c["entity_type"], c["entity_id"]): _scene_of_change(c) for c in recorded}
    recorded_scenes = {("scene", scene) for scene in scene_of_recorded.values() if scene}
    claimed_scenes = {
        ("scene", scene) for kind, ident in claimed if (scene := await _scene_of(session, kind, ident))
    }
    claimed_not_recorded = sorted(claimed - set(scene_of_recorded) - recorded_scenes)
    recorded_not_claimed = sorted(
        key
        for key, scene in scene_of_recorded.items()
        if key not in claimed | claimed_scenes and ("scene", scene) not in claimed
    )
    if not claimed_not_recorded and not recorded_not_claimed:
        return None
    return SummaryMismatch(
        claimed_not_recorded=[EntityKey(type=t, id=i) for t, i in claimed_not_recorded],
        recorded_not_claimed=[EntityKey(type=t, id=i) for t, i in recorded_not_claimed],
    )


def _scene_of_change(change: dict[str, Any]) -> str | None:
    if change["entity_type"] not in ("dialogue_line", "choice"):
        return None
    snapshot = change.get("after") or change.get("before") or {}
    scene = snapshot.get("scene_id")
    return scene if isinstance(scene, str) else None


async def _scene_of(session: AsyncSession, kind: str, ident: str) -> str | None:
    if kind == "dialogue_line":
        line = await session.get(DialogueLine, ident)
        return line.scene_id if line else None
    if kind == "choice":
        choice = await session.get(Choice, ident)
        return choice.scene_id if choice else None
    return None


def _title(row: Revision) -> str:
    snapshot = row.after or row.before or {}
    for key in TITLE_KEYS:
        value = snapshot.get(key)
        if isinstance(value, str):
            return value if len(value) <= 80 else value[:77] + "…"
    return row.entity_id
