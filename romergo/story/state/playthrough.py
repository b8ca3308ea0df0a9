"""Playing a story with its state, as pure logic: which lines and choices show, what picking a choice
changes, and where a given path gets stuck.

`StateRules` parses a story's conditions and effects once; `simulate` walks from a start scene with
a state, entering each scene (its entry effects), showing what holds, and picking the choices it is
given (by label, or by their 1-based number among the shown ones) or, without them, the first one
shown. It stops at an ending, when every choice is hidden (the player is stuck), at a choice that
leads nowhere, when the same scene comes back with the same state (a loop), or after `MAX_STEPS`.
The player, the story check and the agent's `romergo_simulate_playthrough` all use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import cast

from romergo.common.errors import invalid
from romergo.story.records import ChoiceRecord
from romergo.story.state.evaluate import (
    VariableType,
    apply_effects,
    check_condition,
    check_effects,
    holds,
    value_type,
)
from romergo.story.state.expressions import Assignment, ExpressionError, Node, Value
from romergo.story.state.numbers import RANGE_WORDS, in_range
from romergo.story.views import ProjectData

MAX_STEPS = 200


@dataclass(frozen=True)
class StateRules:
    initial: dict[str, Value]
    types: dict[str, VariableType]
    entry: dict[str, list[Assignment]] = field(default_factory=dict)
    line_conditions: dict[str, Node] = field(default_factory=dict)
    choice_conditions: dict[str, Node] = field(default_factory=dict)
    choice_effects: dict[str, list[Assignment]] = field(default_factory=dict)
    broken: list[str] = field(default_factory=list)
    """Conditions and effects that no longer check (stored before a rule changed): they never hold
    and change nothing, and the story check names them."""
    errors: dict[tuple[str, bool], ExpressionError] = field(default_factory=dict)
    """Why each broken rule does not check, by (its entity's id, whether it is an effect): the
    story check says so without parsing the rules again."""

    @classmethod
    def of(cls, data: ProjectData) -> StateRules:
        types = {v.name: cast(VariableType, v.type) for v in data.variables}
        rules = cls({v.name: v.initial for v in data.variables}, types)
        declared = types
        for scene in data.scenes:
            if scene.entry_effects:
                rules._effects(rules.entry, scene.id, scene.entry_effects, declared)
        for line in data.lines:
            if line.condition:
                rules._condition(rules.line_conditions, line.id, line.condition, declared)
        for choice in data.choices:
            if choice.condition:
                rules._condition(rules.choice_conditions, choice.id, choice.condition, declared)
            if choice.effects:
                rules._effects(rules.choice_effects, choice.id, choice.effects, declared)
        return rules

    def start_state(self, overrides: Mapping[str, object] | None = None) -> dict[str, Value]:
        """The initial values, with `overrides` (checked: known names, values of their types)."""
        state = dict(self.initial)
        for name, value in (overrides or {}).items():
            if name not in self.types:
                raise invalid(f"There is no variable called {name!r}.")
            if not isinstance(value, bool | int | float | str) or value_type(value) != self.types[name]:
                raise invalid(f"{name!r} is a {self.types[name]}; {_shown(value)} is not.")
            if isinstance(value, int | float) and not isinstance(value, bool) and not in_range(value):
                raise invalid(
                    f"{name!r} starts outside the numbers a story holds: a number must be {RANGE_WORDS}."
                )
            state[name] = value
        return state

    def shows_line(self, line_id: str, state: Mapping[str, Value]) -> bool:
        condition = self.line_conditions.get(line_id)
        return condition is None or (line_id not in self.broken and holds(condition, state))

    def offers(self, choice_id: str, state: Mapping[str, Value]) -> bool:
        condition = self.choice_conditions.get(choice_id)
        return choice_id not in self.broken and (condition is None or holds(condition, state))

    def enter(self, scene_id: str, state: Mapping[str, Value]) -> dict[str, Value]:
        return apply_effects(self.entry.get(scene_id, []), state)

    def pick(self, choice_id: str, state: Mapping[str, Value]) -> dict[str, Value]:
        return apply_effects(self.choice_effects.get(choice_id, []), state)

    def _condition(
        self, into: dict[str, Node], key: str, source: str, declared: dict[str, VariableType]
    ) -> None:
        try:
            into[key] = check_condition(source, declared)
        except ExpressionError as error:
            self.broken.append(key)
            self.errors[(key, False)] = error

    def _effects(
        self, into: dict[str, list[Assignment]], key: str, source: str, declared: dict[str, VariableType]
    ) -> None:
        try:
            into[key] = check_effects(source, declared)
        except ExpressionError as error:
            self.broken.append(key)
            self.errors[(key, True)] = error


@dataclass(frozen=True)
class Offered:
    label: str
    target_scene_id: str | None
    shown: bool
    condition: str | None = None


@dataclass(frozen=True)
class Step:
    scene_id: str
    title: str
    state: dict[str, Value]
    """After entering the scene (its entry effects applied)."""
    lines_shown: int
    lines_hidden: int
    choices: list[Offered]
    picked: str | None = None


@dataclass(frozen=True)
class Playthrough:
    steps: list[Step]
    outcome: str
    """"ending", "stuck" (every choice hidden, or none and not an ending), "nowhere" (the picked
    choice leads to no scene), "hidden" (a given choice is not shown there), "unknown choice",
    "out of choices" (the given ones ran out), "loop" or "too long"."""
    message: str


def simulate(
    data: ProjectData,
    rules: StateRules,
    choices: Sequence[str] | None = None,
    start_scene: str | None = None,
    state: Mapping[str, object] | None = None,
) -> Playthrough:
    scenes = {scene.id: scene for scene in data.scenes}
    current = start_scene or next((s.id for s in data.scenes_in_order() if s.is_start), None)
    if current is None or current not in scenes:
        raise invalid("There is no such start scene." if start_scene else "The story has no start scene.")
    values = rules.start_state(state)
    steps: list[Step] = []
    seen: set[tuple[str, tuple[tuple[str, Value], ...]]] = set()
    given = list(choices) if choices is not None else None
    while True:
        scene = scenes[current]
        values = rules.enter(current, values)
        options = data.choices_of(current)
        step = _arrive(data, rules, scene.id, scene.title, values)
        key = (current, tuple(sorted(values.items())))
        ended = _ended(scene.is_ending, step.choices, given, key in seen, len(steps))
        if ended is not None:
            steps.append(step)
            return Playthrough(steps, *ended)
        seen.add(key)
        chosen = _choose(options, step.choices, given, scene.title)
        if isinstance(chosen, tuple):
            steps.append(step)
            return Playthrough(steps, *chosen)
        steps.append(replace(step, picked=chosen.label))
        values = rules.pick(chosen.id, values)
        if chosen.target_scene_id not in scenes:
            return Playthrough(steps, "nowhere", f'The choice "{chosen.label}" leads to no scene.')
        current = chosen.target_scene_id


def _arrive(
    data: ProjectData, rules: StateRules, scene_id: str, title: str, values: dict[str, Value]
) -> Step:
    """What the player meets on entering a scene with `values`: the lines and choices that show."""
    lines = data.lines_of(scene_id)
    shown_lines = sum(1 for line in lines if rules.shows_line(line.id, values))
    offered = [
        Offered(c.label, c.target_scene_id, rules.offers(c.id, values), c.condition)
        for c in data.choices_of(scene_id)
    ]
    return Step(scene_id, title, dict(values), shown_lines, len(lines) - shown_lines, offered)


def _ended(
    is_ending: bool, offered: list[Offered], given: list[str] | None, repeated: bool, taken: int
) -> tuple[str, str] | None:
    if is_ending:
        return "ending", "The story reaches an ending."
    if not offered:
        return "stuck", "The scene has no choices and is not an ending: the story stops here."
    if not any(o.shown for o in offered):
        return "stuck", "Every choice here is hidden by its condition: the player is stuck."
    if given is not None and not given:
        return "out of choices", "The choices given are used up."
    if repeated and given is None:
        return "loop", "This scene comes back with the same state: following the first choice loops."
    if taken >= MAX_STEPS:
        return "too long", f"Stopped after {MAX_STEPS} scenes."
    return None


def _choose(
    options: list[ChoiceRecord], offered: list[Offered], given: list[str] | None, title: str
) -> ChoiceRecord | tuple[str, str]:
    """The choice to take: the next given one (a label, or its number among those shown), else the
    first shown; or why none can be taken, as (outcome, message)."""
    visible = [choice for choice, shown in zip(options, offered, strict=True) if shown.shown]
    if given is None:
        return visible[0]
    wanted = given.pop(0).strip()
    if wanted.isdigit() and 1 <= int(wanted) <= len(visible):
        return visible[int(wanted) - 1]
    for choice in visible:
        if choice.label.casefold() == wanted.casefold():
            return choice
    for choice in options:
        if choice.label.casefold() == wanted.casefold():
            return (
                "hidden",
                f'In "{title}" the choice "{choice.label}" is hidden: its condition does not hold.',
            )
    return "unknown choice", f'Scene "{title}" offers no choice "{wanted}".'


def _shown(value: object) -> str:
    """A value as a refusal quotes it: never thousands of characters of a crafted one."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}… ({len(text)} characters)"
