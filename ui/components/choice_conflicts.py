"""A conflict inside a scene's choices, as the choices editor words and settles it.

The core names a clash in the list by the choice and the field it is about (`choices[<id>].label`;
`choices[<id>]` when one side removed a choice the other changed: `romergo.story.choice_lists`).
The editor sends the whole list, so the author's pick in the conflict view is made in the list:
**Take theirs** puts the other side's value into it (or leaves out the choice they removed, or
keeps the one they changed that the author removed); **Keep mine** sends it again as it was, with
a choice they removed as a new one (its id is gone).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from romergo.story import ChoiceSpec
from romergo.story.based_on import EditConflict
from romergo.story.choice_lists import in_choice
from ui.components.conflict_view import Picked


def settle_choices(wanted: Mapping[str, Any], conflict: EditConflict, picked: Picked) -> dict[str, Any]:
    """`ui.drafts.Settle` for the choices: the list to send again after the author's pick."""
    specs: list[ChoiceSpec] = list(wanted["choices"])
    for item in conflict.fields:
        where = in_choice(item.field)
        if where is None:
            continue
        choice_id, field = where
        if item.field in picked.fields and field is not None:
            specs = _with(specs, choice_id, field, picked.fields[item.field])
        elif item.field in picked.dropped:
            specs = _theirs(specs, choice_id, field, item.theirs)
        elif field is None and item.theirs is None:  # mine, of a choice they removed
            specs = [replace(spec, id=None) if spec.id == choice_id else spec for spec in specs]
    return {"choices": specs}


def _theirs(specs: Sequence[ChoiceSpec], choice_id: str, field: str | None, theirs: Any) -> list[ChoiceSpec]:
    if field is not None:
        return _with(specs, choice_id, field, theirs)
    if theirs is None:  # they removed it
        return [spec for spec in specs if spec.id != choice_id]
    # The author removed it and they changed it: it stays as they made it, after the author's.
    kept = ChoiceSpec(
        theirs["label"], theirs["target_scene_id"], theirs.get("condition"), theirs.get("effects"), choice_id
    )
    return [*specs, kept]


def _with(specs: Sequence[ChoiceSpec], choice_id: str, field: str, value: Any) -> list[ChoiceSpec]:
    return [replace(spec, **{field: value}) if spec.id == choice_id else spec for spec in specs]
