"""The conflict view: shown in place of a save when the author and someone else changed the same
field of what they were editing.

It says who made the other change and when ("your agent “Scribe”, command #4, 12 s ago" / "you,
in another tab, 5 s ago"), shows both versions of each such field (a text as the word diff the
agent panel draws, from the version the draft opened on), and offers **Keep mine**, **Take
theirs** or, for a text, **Save merged text** after editing a merged version. Nothing is written
here: the caller (ui/drafts.py) writes what the author picked, or nothing on **Back to my draft**.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from nicegui import ui

from romergo.common.clock import as_utc, utcnow
from romergo.story.based_on import EditConflict, FieldConflict
from romergo.story.choice_lists import in_choice
from romergo.story.kinds import field_label
from romergo.story.last_change import LastChange
from romergo.story.word_diff import word_diff
from ui.components.change_review import word_diff_view
from ui.context import PageContext

Shown = Callable[[str, Any], str | None]
"""How one field's value reads to a person (None: as it is)."""

TITLE = "Changed since you opened it"
KEEP_MINE, TAKE_THEIRS, SAVE_MERGED, BACK = "Keep mine", "Take theirs", "Save merged text", "Back to my draft"
MERGED_LABEL = "Merged text"

OTHER_FIELD_WORDS = {"text": "Text", "choices": "Choices"}
"""Fields a change's review shows in their own way (a word diff, the list of choices); every
other field reads as the review labels it (`romergo.story.kinds`)."""
CHOICE_WORDS = {
    None: "Choice",
    "label": "Choice label",
    "target_scene_id": "Choice leads to",
    "condition": "Choice offered only when",
    "effects": "Choice sets when picked",
}
"""A field inside a scene's choices (`choices[<id>].label`; the whole choice: None)."""


@dataclass(frozen=True)
class Picked:
    """What the author chose: values to send instead of theirs, fields to leave as the others made them."""

    fields: dict[str, Any] = field(default_factory=dict)
    dropped: frozenset[str] = frozenset()


async def resolve_conflict(
    ctx: PageContext, project_id: str, host: ui.element, conflict: EditConflict, shown: Shown | None
) -> Picked | None:
    """The author's pick; None when they went back to their draft."""
    change = await ctx.services.history.last_change(
        ctx.actor, project_id, conflict.entity_type, conflict.entity_id
    )
    texts = [item for item in conflict.fields if _is_text(item)]
    with host, ui.dialog().props("persistent") as dialog, ui.card().classes("w-[36rem] max-w-full gap-3"):
        ui.label(TITLE).classes("text-h6").props('role="heading" aria-level=2')
        ui.label(f"Changed by {who_changed(ctx, change)}. Nothing is saved until you pick.").props(
            'data-testid="conflict-who"'
        )
        for item in conflict.fields:
            _versions(conflict.entity_type, item, shown)
        merged = None
        if len(texts) == 1:
            merged = ui.textarea(MERGED_LABEL, value=texts[0].mine).props("outlined autogrow")
            merged.classes("w-full")
        with ui.row().classes("w-full justify-end gap-2"):
            ui.button(BACK, on_click=lambda: dialog.submit(None)).props("flat")
            ui.button(TAKE_THEIRS, on_click=lambda: dialog.submit(_theirs(conflict))).props("outline")
            if merged is not None:
                text = texts[0].field
                ui.button(
                    SAVE_MERGED, on_click=lambda: dialog.submit(Picked({text: merged.value or ""}))
                ).props("outline")
            ui.button(KEEP_MINE, on_click=lambda: dialog.submit(Picked())).props("unelevated color=primary")
    picked = await dialog
    if not dialog.is_deleted:
        dialog.delete()
    return picked if isinstance(picked, Picked) else None


def who_changed(
    ctx: PageContext, change: LastChange | None, now: datetime | None = None, *, ago: bool = True
) -> str:
    """ "your agent “Scribe”, command #4, 12 s ago", "you, in another tab, 5 s ago" … (without
    `ago`: no time, for a notice that stays on screen)."""
    if change is None:
        return "someone"
    by = change.by
    if by.actor_type == "agent":
        who = f"your agent “{change.agent_name}”" if change.agent_name else "your agent"
    elif by.actor_type == "user" and by.actor_id == ctx.user.id:
        mine = change.batch_id is not None and change.batch_id in ctx.edits.done
        who = "you, in this tab" if mine else "you, in another tab"
    elif by.actor_type == "user":
        who = "another author"
    else:
        who = "Romergo"
    command = f", command #{change.command_number}" if change.command_number else ""
    if not ago:
        return f"{who}{command}"
    return f"{who}{command}, {_ago((now or utcnow()) - as_utc(by.at))}"


# ---- helpers -------------------------------------------------------------------------------------


def _versions(entity_type: str, item: FieldConflict, shown: Shown | None) -> None:
    words = _field_words(entity_type, item.field)
    with ui.column().classes("w-full gap-1").props(f'data-testid="conflict-field" data-field="{item.field}"'):
        ui.label(words).classes("text-subtitle2")
        for side, value in (("Theirs", item.theirs), ("Yours", item.mine)):
            with ui.column().classes("w-full gap-0").props(f'data-testid="conflict-{side.lower()}"'):
                ui.label(side).classes("text-caption text-grey-8")
                if _is_text(item):
                    word_diff_view(word_diff(item.base or "", value or ""))
                else:
                    ui.label(_value(item.field, value, shown)).classes("text-body2")


def _field_words(entity_type: str, name: str) -> str:
    in_list = in_choice(name)
    if in_list is not None:
        return CHOICE_WORDS.get(in_list[1], name)
    return field_label(entity_type, name) or OTHER_FIELD_WORDS.get(name, name)


def _theirs(conflict: EditConflict) -> Picked:
    return Picked(dropped=frozenset(item.field for item in conflict.fields))


def _is_text(item: FieldConflict) -> bool:
    values = (item.base, item.mine, item.theirs)
    return item.field in ("text", "title", "name", "description") and all(
        value is None or isinstance(value, str) for value in values
    )


def _value(name: str, value: Any, shown: Shown | None) -> str:
    said = shown(name, value) if shown is not None else None
    if said is not None:
        return said
    if value is None or value == "":
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    if name == "choices" and isinstance(value, list):
        return "; ".join(str(choice[0]) if isinstance(choice, list) else str(choice) for choice in value)
    return str(value)


def _ago(elapsed: timedelta) -> str:
    seconds = max(0, round(elapsed.total_seconds()))
    if seconds < 60:
        return f"{seconds} s ago"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    return f"{seconds // 3600} h ago"
