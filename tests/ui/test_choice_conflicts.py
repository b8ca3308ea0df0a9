"""The author's pick in the conflict view, made in the list of choices the editor sends again: the
list settled on a pick, merged by the core on the revision the conflict reported, says what was
picked (mine or theirs) and conflicts no more."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from romergo.story import ChoiceSpec
from romergo.story.based_on import EditConflict
from romergo.story.choice_lists import merge_choices
from ui.components.choice_conflicts import settle_choices
from ui.components.conflict_view import Picked

FOLLOW = ChoiceSpec("Follow the stranger", "scn_cliff", id="cho_follow")
RETURN = ChoiceSpec("Return to the harbor", "scn_harbor", id="cho_return")
READ = [FOLLOW, RETURN]
"""The choices as the author's form opened on them."""


def renamed(choice: ChoiceSpec, label: str) -> ChoiceSpec:
    return replace(choice, label=label)


def written_after(
    picked: Picked, theirs: Sequence[ChoiceSpec], mine: Sequence[ChoiceSpec]
) -> list[tuple[str | None, str]]:
    """The choices written when the author picks `picked` and the list is saved again (ids, labels)."""
    clashes = merge_choices(READ, theirs, mine)[1]
    assert clashes, "the two sides were meant to conflict"
    conflict = EditConflict("scene", "scn_tavern", 1, 2, tuple(clashes), {}, None)
    settled = settle_choices({"choices": list(mine)}, conflict, picked)["choices"]
    written, more = merge_choices(theirs, theirs, settled)  # on the conflict's revision: theirs is its base
    assert more == []
    return [(c.id, c.label) for c in written]


def take_theirs(theirs: Sequence[ChoiceSpec], mine: Sequence[ChoiceSpec]) -> Picked:
    clashes = merge_choices(READ, theirs, mine)[1]
    return Picked(dropped=frozenset(c.field for c in clashes))


async def test_the_same_label_on_both_sides_takes_theirs_or_keeps_mine() -> None:
    theirs, mine = [renamed(FOLLOW, "Trail the stranger"), RETURN], [renamed(FOLLOW, "Follow him"), RETURN]

    assert written_after(take_theirs(theirs, mine), theirs, mine) == [
        ("cho_follow", "Trail the stranger"),
        ("cho_return", "Return to the harbor"),
    ]
    assert written_after(Picked(), theirs, mine) == [
        ("cho_follow", "Follow him"),
        ("cho_return", "Return to the harbor"),
    ]


async def test_a_label_typed_in_the_conflict_view_is_the_one_written() -> None:
    theirs, mine = [renamed(FOLLOW, "Trail the stranger"), RETURN], [renamed(FOLLOW, "Follow him"), RETURN]
    merged = Picked({"choices[cho_follow].label": "Trail him"})

    assert written_after(merged, theirs, mine)[0] == ("cho_follow", "Trail him")


async def test_a_choice_they_removed_and_i_changed_goes_with_theirs_or_comes_back_as_new_with_mine() -> None:
    theirs, mine = [FOLLOW], [FOLLOW, renamed(RETURN, "Row back to the harbor")]

    assert written_after(take_theirs(theirs, mine), theirs, mine) == [("cho_follow", "Follow the stranger")]
    assert written_after(Picked(), theirs, mine) == [
        ("cho_follow", "Follow the stranger"),
        (None, "Row back to the harbor"),
    ]


async def test_a_choice_i_removed_and_they_changed_stays_as_theirs_or_goes_with_mine() -> None:
    theirs, mine = [FOLLOW, renamed(RETURN, "Row back to the harbor")], [FOLLOW]

    assert written_after(take_theirs(theirs, mine), theirs, mine) == [
        ("cho_follow", "Follow the stranger"),
        ("cho_return", "Row back to the harbor"),
    ]
    assert written_after(Picked(), theirs, mine) == [("cho_follow", "Follow the stranger")]
