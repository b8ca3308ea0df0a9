"""A scene's choices as a list merged by choice id.

A choice keeps its id across `set_choices`: a choice given with its id is that choice, changed in
place; one without an id is new. A writer that names the revision it read is merged with what
changed since, choice by choice (`merge_choices`):
- a choice only one side added, removed or changed is taken from that side; two changes of
  different fields of one choice are both kept;
- the same field of the same choice changed differently on both sides, or a choice one side removed
  and the other changed, is a conflict, and nothing is written;
- the order is the writer's; choices the other side added since come after it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from romergo.common.errors import invalid
from romergo.common.ids import new_id
from romergo.story.base import Mutation
from romergo.story.based_on import FieldConflict, merge_fields
from romergo.story.ledger import ChoiceRecord, SceneRecord

FIELDS = ("label", "target_scene_id", "condition", "effects")


@dataclass(frozen=True)
class ChoiceSpec:
    """A choice as a writer wants it: what `set_choices` takes, and what the merge works on."""

    label: str
    target_scene_id: str | None
    condition: str | None = None
    """Offered only when this holds; None or blank: always."""
    effects: str | None = None
    """`set …` applied when the player picks it."""
    id: str | None = None
    """One of the scene's choices, changed in place (its id kept); None: a new choice."""

    @classmethod
    def of(cls, row: ChoiceRecord | Mapping[str, Any]) -> ChoiceSpec:
        if isinstance(row, Mapping):
            return cls(
                row["label"], row["target_scene_id"], row.get("condition"), row.get("effects"), row["id"]
            )
        return cls(row.label, row.target_scene_id, row.condition, row.effects, row.id)

    def says(self) -> tuple[str | None, ...]:
        return (self.label, self.target_scene_id, self.condition, self.effects)

    def fields(self) -> dict[str, Any]:
        return dict(zip(FIELDS, self.says(), strict=True))


def checked_ids(wanted: Sequence[ChoiceSpec], known: set[str]) -> None:
    """Each id given once, naming one of the scene's choices."""
    given = [choice.id for choice in wanted if choice.id is not None]
    if len(set(given)) != len(given):
        raise invalid("Each choice id may appear once in the list.")
    for choice_id in given:
        if choice_id not in known:
            raise _unknown(choice_id)


def merge_choice_field(
    base: Mapping[str, Any], theirs: Mapping[str, Any], mine: Mapping[str, Any]
) -> tuple[dict[str, Any], list[FieldConflict]]:
    """`merge_choices` over scene snapshots' `choices` fields: the merge `based_on` is given."""
    merged, conflicts = merge_choices(
        from_field(base.get("choices", [])), from_field(theirs["choices"]), from_field(mine["choices"])
    )
    return {"choices": as_field(merged)}, conflicts


def unchanged(old: Sequence[ChoiceRecord], wanted: Sequence[ChoiceSpec]) -> bool:
    """The same choices saying the same, in the same order (a choice restated without its id too)."""
    return len(old) == len(wanted) and all(
        ChoiceSpec.of(row).says() == choice.says() and choice.id in (None, row.id)
        for row, choice in zip(old, wanted, strict=True)
    )


def merge_choices(
    base: Sequence[ChoiceSpec], theirs: Sequence[ChoiceSpec], mine: Sequence[ChoiceSpec]
) -> tuple[list[ChoiceSpec], list[FieldConflict]]:
    """The list to write and the conflicts, choice by choice (see the module's docstring)."""
    was = {c.id: c for c in base}
    now = {c.id: c for c in theirs}
    kept = {c.id for c in mine if c.id is not None}
    merged: list[ChoiceSpec] = []
    conflicts: list[FieldConflict] = []
    for choice in mine:
        written, clashes = _merge_one(choice, was, now)
        merged += written
        conflicts += clashes
    for choice_id, read in was.items():
        current = now.get(choice_id)
        if choice_id not in kept and current is not None and current.says() != read.says():
            # removed by the writer, changed by the other side
            conflicts.append(FieldConflict(choice_path(choice_id), read.fields(), None, current.fields()))
    merged += [c for c in theirs if c.id not in was and c.id not in kept]  # added by them since
    return merged, conflicts


def _merge_one(
    choice: ChoiceSpec, was: Mapping[str | None, ChoiceSpec], now: Mapping[str | None, ChoiceSpec]
) -> tuple[list[ChoiceSpec], list[FieldConflict]]:
    """One choice of the writer's list: what to write of it (nothing, or it merged), and conflicts."""
    if choice.id is None:
        return [choice], []
    read, current = was.get(choice.id), now.get(choice.id)
    if current is None:  # removed by the other side since, or never one of the scene's
        if read is None:
            raise _unknown(choice.id)
        if read.says() == choice.says():
            return [], []
        return [], [FieldConflict(choice_path(choice.id), read.fields(), choice.fields(), None)]
    write, clashes = merge_fields((read or current).fields(), current.fields(), choice.fields())
    conflicts = [FieldConflict(choice_path(choice.id, c.field), c.base, c.mine, c.theirs) for c in clashes]
    return [ChoiceSpec(**{**current.fields(), **write}, id=choice.id)], conflicts


def lost_choice_changes(
    base: Mapping[str, Any], theirs: Mapping[str, Any], mine: Mapping[str, Any]
) -> list[str]:
    """What a list written as given (no merge) takes away of the changes made since `base`: a
    choice added or changed since that the list leaves out (`choices[<id>]`), or a field of one
    changed since that the list sets otherwise (`choices[<id>].<field>`)."""
    was = {c.id: c for c in from_field(base.get("choices", []))}
    given: dict[str | None, ChoiceSpec] = {c.id: c for c in from_field(mine["choices"]) if c.id}
    lost: list[str] = []
    for current in from_field(theirs["choices"]):
        read = was.get(current.id)
        if read is not None and read.says() == current.says():
            continue  # unchanged since
        mine_now = given.get(current.id)
        if mine_now is None:
            lost.append(choice_path(current.id))
            continue
        before = read.fields() if read is not None else {}
        lost += [
            choice_path(current.id, name)
            for name, value in current.fields().items()
            if value != before.get(name) and mine_now.fields()[name] != value
        ]
    return lost


def choice_path(choice_id: str | None, field: str | None = None) -> str:
    """How a conflict or a lost change names one choice (`choices[<id>]`) or one of its fields
    (`choices[<id>].label`)."""
    whole = f"choices[{choice_id}]"
    return whole if field is None else f"{whole}.{field}"


def in_choice(name: str) -> tuple[str, str | None] | None:
    """The choice id and field (None: the whole choice) that a `choice_path` names; None for any
    other name."""
    found = _PATH.fullmatch(name)
    return (found.group(1), found.group(2)) if found else None


_PATH = re.compile(r"choices\[([^\]]+)\](?:\.([a-z_]+))?")


def as_field(choices: Sequence[ChoiceSpec]) -> list[dict[str, Any]]:
    """The list as the value of a scene's `choices` field (what a conflict shows)."""
    return [{"id": c.id, **c.fields()} for c in choices]


def from_field(value: Sequence[Mapping[str, Any]]) -> list[ChoiceSpec]:
    return [ChoiceSpec.of(item) for item in value]


async def write_choices(
    tx: Mutation, scene: SceneRecord, old: Sequence[ChoiceRecord], wanted: Sequence[ChoiceSpec]
) -> list[ChoiceRecord]:
    """The scene's choices made to be `wanted`: a choice with an id changed in place, a new one
    added with a new id, the rest removed."""
    kept = {choice.id: choice for choice in old}
    written: list[ChoiceRecord] = []
    for position, choice in enumerate(wanted):
        was = kept.pop(choice.id, None) if choice.id is not None else None
        if was is None:
            now = ChoiceRecord(
                id=new_id("cho"),
                project_id=scene.project_id,
                scene_id=scene.id,
                position=position,
                **choice.fields(),
            )
            await tx.story.add_choice(now)
        else:
            now = replace(was, position=position, **choice.fields())
            if now != was:
                await tx.story.save_choice(now)
        written.append(now)
    for gone in kept.values():
        await tx.story.remove_choice(gone.id)
    return written


def _unknown(choice_id: str) -> Exception:
    return invalid(
        f'Choice "{choice_id}" is not one of this scene\'s choices: leave its id out for a new one.'
    )
