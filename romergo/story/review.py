"""What a set of changes did, in the author's terms: one entry per entity, ready to show.

Built from the revisions' before/after snapshots (see `restore.changed_entities`): dialogue as a word
diff, titles and names before → after, media slots as the assets before and after, choices added,
removed, renamed and retargeted, moves as places, and what a created or deleted scene or chapter
held. Ids are turned into the names the author knows through `Names` (ids it cannot name, such as a
scene deleted long ago, are shown as such). Pure functions: the panel, the history page and tests
share them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from romergo.story.restore import ChangedEntity, title_of
from romergo.story.word_diff import Segment, word_diff

FieldKind = Literal["text", "flag", "image", "audio", "color"]
ChoiceChangeKind = Literal["added", "removed", "renamed", "retargeted", "condition", "effects"]
Action = Literal["created", "deleted", "updated", "moved"]

FIELDS: dict[str, tuple[tuple[str, str, FieldKind], ...]] = {
    "project": (("title", "Title", "text"),),
    "chapter": (
        ("title", "Title", "text"),
        ("background_asset_id", "Background", "image"),
        ("music_asset_id", "Music", "audio"),
    ),
    "scene": (
        ("title", "Title", "text"),
        ("is_start", "Start scene", "flag"),
        ("is_ending", "Ending", "flag"),
        ("background_asset_id", "Background", "image"),
        ("music_asset_id", "Music", "audio"),
        ("entry_effects", "On entering", "text"),
    ),
    "dialogue_line": (("character_id", "Speaker", "text"), ("condition", "Shown only when", "text")),
    "variable": (
        ("name", "Name", "text"),
        ("initial", "Starts as", "text"),
        ("description", "Description", "text"),
    ),
    "character": (("name", "Name", "text"), ("color", "Colour", "color")),
    "asset": (("name", "Name", "text"),),
}
"""Per entity type: snapshot key, the label the author reads, how the value is shown."""


@dataclass(frozen=True)
class FieldChange:
    label: str
    kind: FieldKind
    before: str | None
    """Shown value (a name, "yes"/"no", a colour); None when empty."""
    after: str | None
    before_id: str | None = None
    """For media: the asset before and after, so the page can show the image or play the sound."""
    after_id: str | None = None


@dataclass(frozen=True)
class ChoiceChange:
    kind: ChoiceChangeKind
    label: str
    before_label: str | None = None
    before_target: str | None = None
    after_target: str | None = None
    before_rule: str | None = None
    """For `condition` and `effects`: the rule before and after ("" or None: none)."""
    after_rule: str | None = None
    condition: str | None = None
    """For `added`: when the new choice is offered, and what picking it does (None: always, nothing)."""
    effects: str | None = None


@dataclass(frozen=True)
class EntityReview:
    entity_type: str
    entity_id: str
    title: str
    action: Action
    scene_id: str | None
    """The scene to link to (a scene itself, or the scene of a line); None once it is gone."""
    chapter_id: str | None
    words: list[Segment] = field(default_factory=list)
    fields: list[FieldChange] = field(default_factory=list)
    choices: list[ChoiceChange] = field(default_factory=list)
    moved: str | None = None
    holds: str | None = None
    """What a created or deleted scene or chapter held ("3 lines, 2 choices")."""


@dataclass
class Names:
    """Titles of the project's scenes, chapters, characters and assets by id."""

    by_id: dict[str, str] = field(default_factory=dict)

    def of(self, entity_id: object, missing: str) -> str | None:
        if not isinstance(entity_id, str) or not entity_id:
            return None
        return self.by_id.get(entity_id, missing)


def review(entities: list[ChangedEntity], names: Names) -> list[EntityReview]:
    """One entry per entity the set changed, in the order of their changes; choices in their scene."""
    for entity in entities:  # a deleted scene's title is still known from its snapshot
        snapshot = entity.before or entity.after or {}
        names.by_id.setdefault(entity.entity_id, title_of(snapshot))
    return [entry for entity in entities if (entry := _entry(entity, names)) is not None]


# ---- one entity ----------------------------------------------------------------------------------


def _entry(entity: ChangedEntity, names: Names) -> EntityReview | None:
    if entity.before is None and entity.after is None:
        return None
    now = entity.after or entity.before or {}
    entry = EntityReview(
        entity_type=entity.entity_type,
        entity_id=entity.entity_id,
        title=title_of(now) or names.by_id.get(entity.entity_id, ""),
        action=_action(entity.before, entity.after),
        scene_id=_scene_of(entity, now),
        chapter_id=_chapter_of(entity, now),
        **_details(entity, names),
    )
    if entry.action == "updated" and entry.moved and not (entry.words or entry.fields or entry.choices):
        return replace(entry, action="moved")
    return entry


def _details(entity: ChangedEntity, names: Names) -> dict[str, Any]:
    kind, before, after = entity.entity_type, entity.before, entity.after
    details: dict[str, Any] = {
        "words": _words(kind, before, after),
        "moved": _moved(kind, before, after, names),
    }
    if before is not None and after is not None:
        details["fields"] = _fields(kind, before, after, names)
        details["choices"] = _choices(before, after, names)
    else:
        details["holds"] = _holds(after or before or {})
    return details


def _action(before: dict[str, Any] | None, after: dict[str, Any] | None) -> Action:
    if before is None:
        return "created"
    return "deleted" if after is None else "updated"


def _chapter_of(entity: ChangedEntity, snapshot: dict[str, Any]) -> str | None:
    if entity.entity_type == "chapter":
        return entity.entity_id
    chapter = snapshot.get("chapter_id") if entity.entity_type == "scene" else None
    return chapter if isinstance(chapter, str) else None


def _scene_of(entity: ChangedEntity, snapshot: dict[str, Any]) -> str | None:
    """The scene to link to; none once the entity is gone."""
    if entity.after is None:
        return None
    if entity.entity_type == "scene":
        return entity.entity_id
    if entity.entity_type == "dialogue_line":
        scene = snapshot.get("scene_id")
        return scene if isinstance(scene, str) else None
    return None


def _words(kind: str, before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[Segment]:
    if kind != "dialogue_line":
        return []
    old, new = (before or {}).get("text", ""), (after or {}).get("text", "")
    if old == new:
        return []
    return word_diff(old if isinstance(old, str) else "", new if isinstance(new, str) else "")


def _fields(kind: str, before: dict[str, Any], after: dict[str, Any], names: Names) -> list[FieldChange]:
    found = [
        _field(label, shown, key, before.get(key), after.get(key), names)
        for key, label, shown in FIELDS.get(kind, ())
        if before.get(key) != after.get(key)
    ]
    if kind == "asset" and before.get("tags") != after.get("tags"):
        old, new = ", ".join(before.get("tags") or []), ", ".join(after.get("tags") or [])
        found.append(FieldChange("Tags", "text", old or None, new or None))
    return found


def _field(label: str, shown: FieldKind, key: str, old: object, new: object, names: Names) -> FieldChange:
    if shown in ("image", "audio"):
        before, after = names.of(old, "a deleted asset"), names.of(new, "a deleted asset")
        return FieldChange(label, shown, before, after, _text(old), _text(new))
    if shown == "flag":
        return FieldChange(label, shown, "yes" if old else "no", "yes" if new else "no")
    if key == "initial":
        return FieldChange(label, shown, _value(old), _value(new))
    if key == "character_id":
        before = names.of(old, "a deleted character") or "Narration"
        return FieldChange(label, shown, before, names.of(new, "a deleted character") or "Narration")
    return FieldChange(label, shown, _text(old), _text(new))


def _choices(before: dict[str, Any], after: dict[str, Any], names: Names) -> list[ChoiceChange]:
    removed, added, pairs = _matched_choices(before.get("choices", []), after.get("choices", []))

    def target(choice: dict[str, Any]) -> str | None:
        return names.of(choice.get("target_scene_id"), "a deleted scene")

    found = [ChoiceChange("removed", c["label"], before_target=target(c)) for c in removed]
    found += [
        ChoiceChange(
            "added",
            c["label"],
            after_target=target(c),
            condition=c.get("condition"),
            effects=c.get("effects"),
        )
        for c in added
    ]
    for was, now in pairs:
        if was["label"] != now["label"]:
            found.append(ChoiceChange("renamed", now["label"], before_label=was["label"]))
        if was.get("target_scene_id") != now.get("target_scene_id"):
            found.append(
                ChoiceChange("retargeted", now["label"], before_target=target(was), after_target=target(now))
            )
        for rule in ("condition", "effects"):
            if (was.get(rule) or None) != (now.get(rule) or None):
                found.append(
                    ChoiceChange(rule, now["label"], before_rule=was.get(rule), after_rule=now.get(rule))
                )
    return found


Choices = list[dict[str, Any]]


def _matched_choices(
    old: Choices, new: Choices
) -> tuple[Choices, Choices, list[tuple[dict[str, Any], dict[str, Any]]]]:
    """(removed, added, pairs of the same choice before and after). Replaced choices get new ids:
    one with the same label as a removed one is that choice, changed."""
    new_ids = {c["id"] for c in new}
    old_by_id = {c["id"]: c for c in old}
    removed = [c for c in old if c["id"] not in new_ids]
    pairs = [(old_by_id[c["id"]], c) for c in new if c["id"] in old_by_id]
    added = []
    for choice in (c for c in new if c["id"] not in old_by_id):
        twin = next((c for c in removed if c["label"] == choice["label"]), None)
        if twin is None:
            added.append(choice)
        else:
            removed.remove(twin)
            pairs.append((twin, choice))
    return removed, added, pairs


def _moved(
    kind: str, before: dict[str, Any] | None, after: dict[str, Any] | None, names: Names
) -> str | None:
    if before is None or after is None:
        return None
    parent = {"scene": "chapter_id", "dialogue_line": "scene_id"}.get(kind)
    if parent and before.get(parent) != after.get(parent):
        where = "chapter" if kind == "scene" else "scene"
        return (
            f"Moved from {where} “{names.of(before.get(parent), 'a deleted ' + where)}” "
            f"to “{names.of(after.get(parent), 'a deleted ' + where)}”"
        )
    old, new = before.get("position"), after.get("position")
    if isinstance(old, int) and isinstance(new, int) and old != new:
        place = "line" if kind == "dialogue_line" else "place"
        return f"Moved from {place} {old + 1} to {place} {new + 1}"
    return None


def _holds(snapshot: dict[str, Any]) -> str | None:
    parts = []
    for key, word in (("scenes", "scene"), ("lines", "line"), ("choices", "choice")):
        items = snapshot.get(key)
        if isinstance(items, list) and items:
            parts.append(f"{len(items)} {word}{'s' if len(items) != 1 else ''}")
    return ", ".join(parts) or None


def _value(value: object) -> str | None:
    """A variable's value as the story's expressions write it."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else str(value)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
