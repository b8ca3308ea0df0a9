"""What a set of changes did, in the author's terms: one entry per entity, ready to show.

Built from the revisions' before/after snapshots (see `restore.changed_entities`): dialogue as a word
diff, titles and names before → after, media slots as the assets before and after, choices added,
removed, renamed and retargeted, moves as places, and what a created or deleted scene or chapter
held. Ids are turned into the names the author knows through `Names` (ids it cannot name, such as a
scene deleted long ago, are shown as such). Pure functions: the panel, the history page and tests
share them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from romergo.story.kinds import KINDS, Action, EntityType, FieldKind, Kind, Reading, ReviewField
from romergo.story.restore import ChangedEntity
from romergo.story.word_diff import Segment, word_diff

ChoiceChangeKind = Literal["added", "removed", "renamed", "retargeted", "condition", "effects"]


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
        names.by_id.setdefault(entity.entity_id, KINDS[entity.entity_type].title(snapshot))
    return [entry for entity in entities if (entry := _entry(entity, names)) is not None]


# ---- one entity ----------------------------------------------------------------------------------


def _entry(entity: ChangedEntity, names: Names) -> EntityReview | None:
    if entity.before is None and entity.after is None:
        return None
    now = entity.after or entity.before or {}
    kind = KINDS[entity.entity_type]
    entry = EntityReview(
        entity_type=entity.entity_type,
        entity_id=entity.entity_id,
        title=kind.title(now) or names.by_id.get(entity.entity_id, ""),
        action=_action(entity.before, entity.after),
        scene_id=_link(entity, now, "scene") if entity.after is not None else None,
        chapter_id=_link(entity, now, "chapter"),
        **_details(kind, entity, names),
    )
    if entry.action == "updated" and entry.moved and not (entry.words or entry.fields or entry.choices):
        return replace(entry, action="moved")
    return entry


def _details(kind: Kind, entity: ChangedEntity, names: Names) -> dict[str, Any]:
    before, after = entity.before, entity.after
    details: dict[str, Any] = {
        "words": _words(kind, before, after),
        "moved": _moved(kind, before, after, names),
    }
    if before is not None and after is not None:
        details["fields"] = _fields(kind, before, after, names)
        details["choices"] = _choices(before, after, names)
    else:
        details["holds"] = _holds(kind, after or before or {})
    return details


def _action(before: dict[str, Any] | None, after: dict[str, Any] | None) -> Action:
    if before is None:
        return "created"
    return "deleted" if after is None else "updated"


def _link(entity: ChangedEntity, snapshot: dict[str, Any], to: EntityType) -> str | None:
    """The entity of kind `to` to link to: the entity itself, or the one it lies in."""
    if entity.entity_type == to:
        return entity.entity_id
    parent = KINDS[entity.entity_type].parent
    where = snapshot.get(parent.column) if parent is not None and parent.kind == to else None
    return where if isinstance(where, str) else None


def _words(kind: Kind, before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[Segment]:
    if kind.worded is None:
        return []
    old, new = (before or {}).get(kind.worded, ""), (after or {}).get(kind.worded, "")
    if old == new:
        return []
    return word_diff(old if isinstance(old, str) else "", new if isinstance(new, str) else "")


def _fields(kind: Kind, before: dict[str, Any], after: dict[str, Any], names: Names) -> list[FieldChange]:
    return [
        _field(shown, before.get(shown.key), after.get(shown.key), names)
        for shown in kind.review_fields
        if before.get(shown.key) != after.get(shown.key)
    ]


def _field(shown: ReviewField, old: object, new: object, names: Names) -> FieldChange:
    read = _READINGS[shown.reads]
    before, after = read(old, names), read(new, names)
    if shown.reads == "asset":  # the page shows the image or plays the sound
        return FieldChange(shown.label, shown.shown, before, after, _text(old), _text(new))
    return FieldChange(shown.label, shown.shown, before, after)


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
    kind: Kind, before: dict[str, Any] | None, after: dict[str, Any] | None, names: Names
) -> str | None:
    if before is None or after is None:
        return None
    parent = kind.parent
    if parent and before.get(parent.column) != after.get(parent.column):
        where = KINDS[parent.kind].word
        return (
            f"Moved from {where} “{names.of(before.get(parent.column), 'a deleted ' + where)}” "
            f"to “{names.of(after.get(parent.column), 'a deleted ' + where)}”"
        )
    old, new = before.get("position"), after.get("position")
    if isinstance(old, int) and isinstance(new, int) and old != new:
        place = kind.place_word
        return f"Moved from {place} {old + 1} to {place} {new + 1}"
    return None


def _holds(kind: Kind, snapshot: dict[str, Any]) -> str | None:
    parts = []
    for held in kind.holds:
        items = snapshot.get(held.key)
        if isinstance(items, list) and items:
            word = KINDS[held.kind].word
            parts.append(f"{len(items)} {word}{'s' if len(items) != 1 else ''}")
    return ", ".join(parts) or None


# ---- how a stored value reads ---------------------------------------------------------------------


def _asset(value: object, names: Names) -> str | None:
    return names.of(value, "a deleted asset")


def _flag(value: object, names: Names) -> str | None:
    return "yes" if value else "no"


def _speaker(value: object, names: Names) -> str | None:
    return names.of(value, "a deleted character") or "Narration"


def _listed(value: object, names: Names) -> str | None:
    return ", ".join(value if isinstance(value, list) else []) or None


def _value(value: object, names: Names) -> str | None:
    """A variable's value as the story's expressions write it."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else str(value)


def _text(value: object, names: Names | None = None) -> str | None:
    return value if isinstance(value, str) and value else None


_READINGS: dict[Reading, Callable[[object, Names], str | None]] = {
    "text": _text,
    "flag": _flag,
    "asset": _asset,
    "speaker": _speaker,
    "value": _value,
    "list": _listed,
}
