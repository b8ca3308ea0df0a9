"""What a change did to one entity, as the agent panel and the history page show it.

Dialogue as a word diff (`<del>` / `<ins>`, readable without colour), titles and names before →
after, backgrounds as two thumbnails, music as two players, choices added / removed / renamed /
retargeted, moves, and what a created or deleted scene held. Everything is text from the story or
an agent, so it is put in as text, never as HTML.
"""

from __future__ import annotations

from collections.abc import Sequence

from nicegui import ui
from nicegui.elements.mixins.text_element import TextElement

from romergo.common import urls
from romergo.story.review import ChoiceChange, EntityReview, FieldChange
from romergo.story.word_diff import Segment

ENTITY_WORDS = {
    "project": "Story",
    "chapter": "Chapter",
    "scene": "Scene",
    "dialogue_line": "Line",
    "choice": "Choice",
    "character": "Character",
    "asset": "Asset",
}
ACTION_WORDS = {"created": "added", "deleted": "deleted", "updated": "changed", "moved": "moved"}
PIECE_CLASSES = {
    "same": "",
    "inserted": "bg-green-2 text-green-10 no-underline rounded-sm",
    "deleted": "bg-red-1 text-red-10 rounded-sm",
}
PIECE_TAGS = {"same": "span", "inserted": "ins", "deleted": "del"}


def change_review(project_id: str, entries: list[EntityReview]) -> None:
    """Every entry, grouped by entity, each with a link to where it lives (while it exists)."""
    if not entries:
        ui.label("Nothing in the story changed.").classes("text-caption text-grey-7")
    for entry in entries:
        with ui.column().classes("w-full gap-1 py-1 border-b").props('data-testid="change"'):
            _heading(project_id, entry)
            _body(entry)


def _heading(project_id: str, entry: EntityReview) -> None:
    what = f"{ENTITY_WORDS.get(entry.entity_type, entry.entity_type)} “{_short(entry.title)}”"
    with ui.row().classes("items-baseline gap-1"):
        target = _link_of(project_id, entry)
        if target:
            ui.link(what, target).classes("text-caption text-weight-medium")
        else:
            ui.label(what).classes("text-caption text-weight-medium")
        ui.label(ACTION_WORDS[entry.action]).classes("text-caption text-grey-7").props(
            f'data-testid="change-action" data-action="{entry.action}"'
        )


def _body(entry: EntityReview) -> None:
    if entry.words:
        word_diff_view(entry.words)
    for change in entry.fields:
        _field(change)
    for choice in entry.choices:
        ui.label(_choice_words(choice)).classes("text-caption").props('data-testid="choice-change"')
    if entry.moved:
        ui.label(entry.moved).classes("text-caption")
    if entry.holds:
        ui.label(f"With {entry.holds}").classes("text-caption text-grey-7")


def word_diff_view(segments: Sequence[Segment]) -> ui.element:
    """A text's word diff: deleted words struck (`<del>`), inserted ones underlined (`<ins>`)."""
    with (
        ui.element("div")
        .classes("text-body2 whitespace-pre-wrap break-words")
        .props('data-testid="word-diff"')
    ) as shown:
        for segment in segments:
            TextElement(tag=PIECE_TAGS[segment.kind], text=segment.text).classes(PIECE_CLASSES[segment.kind])
    return shown


def _field(change: FieldChange) -> None:
    if change.kind == "image":
        with ui.row().classes("items-center gap-2").props('data-testid="media-change"') as row:
            row.props["aria-label"] = change.label
            ui.label(f"{change.label}:").classes("text-caption")
            _thumbnail(change.before_id, change.before)
            ui.label("→")
            _thumbnail(change.after_id, change.after)
        return
    if change.kind == "audio":
        with ui.column().classes("gap-0").props('data-testid="media-change"') as column:
            column.props["aria-label"] = change.label
            ui.label(f"{change.label}: {change.before or 'none'} → {change.after or 'none'}").classes(
                "text-caption"
            )
            for asset_id in (change.before_id, change.after_id):
                if asset_id:
                    ui.audio(urls.media(asset_id), controls=True, autoplay=False).classes("w-full").props(
                        "preload=none"
                    )
        return
    ui.label(f"{change.label}: {change.before or '—'} → {change.after or '—'}").classes("text-caption").props(
        'data-testid="field-change"'
    )


def _thumbnail(asset_id: str | None, name: str | None) -> None:
    if asset_id is None:
        ui.label("none").classes("text-caption text-grey-7")
        return
    image = ui.image(urls.media(asset_id)).classes("w-16 h-10 rounded").props("fit=cover")
    image.props["alt"] = name or ""


def _choice_words(choice: ChoiceChange) -> str:
    label = f"“{_short(choice.label)}”"
    if choice.kind == "added":
        rules = "".join(
            f"; {words} {rule}"
            for words, rule in (("offered only when", choice.condition), ("when picked:", choice.effects))
            if rule
        )
        return f"Choice added: {label} → {choice.after_target or 'nowhere yet'}{rules}"
    if choice.kind == "removed":
        return f"Choice removed: {label}"
    if choice.kind == "renamed":
        return f"Choice renamed: “{_short(choice.before_label or '')}” → {label}"
    if choice.kind in RULE_WORDS:
        words, none = RULE_WORDS[choice.kind]
        return f"Choice {label} {words}: {choice.before_rule or none} → {choice.after_rule or none}"
    now, was = choice.after_target or "nowhere", choice.before_target or "nowhere"
    return f"Choice {label} now leads to {now} (was {was})"


RULE_WORDS = {"condition": ("offered only when", "always"), "effects": ("when picked", "nothing")}


def _link_of(project_id: str, entry: EntityReview) -> str | None:
    if entry.action == "deleted":
        return None
    if entry.entity_type == "dialogue_line":
        return urls.scene(project_id, entry.scene_id) if entry.scene_id else None
    return urls.entity(project_id, entry.entity_type, entry.entity_id)


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
