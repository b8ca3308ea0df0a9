"""The story check's part about state: what the variables, conditions and effects do
when the story is played, as opposed to how its scenes are linked.

Two kinds of findings:

- From the text of the rules alone: a condition or effect that names a variable the story does
  not have (or no longer checks), a variable read but never set by any effect (it keeps its
  starting value), a variable nothing uses.
- From playing every path: starting at the start scene with the starting values, every reachable
  (scene, state) pair is visited once (`explore`). A choice set whose options are all hidden in
  one of those states strands the player; a condition that held in none of them never holds; a
  scene linked from the start but never entered is reachable only through such conditions. Flags
  and small number ranges keep the states few; when there are more than `MAX_STATES` (a counter
  that grows without bound, say), the exploration stops and says so, and reports only what it
  saw happen (a stuck player), never "never true", which it could no longer prove.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from romergo.story.problems import Problem
from romergo.story.state.evaluate import names_in, names_read
from romergo.story.state.expressions import ExpressionError, Value
from romergo.story.state.playthrough import StateRules
from romergo.story.views import ProjectData

MAX_STATES = 20_000
Where = Callable[[str], tuple[str, str]]
"""Scene id → (scene id, chapter id), for a problem's location."""


def state_problems(data: ProjectData, at: Where, linked: set[str]) -> list[Problem]:
    """Every state problem of the story; `linked` is the scenes reachable from the start by
    choices, whatever their conditions."""
    rules = StateRules.of(data)
    uses = _Uses.of(data, rules)
    problems = [*_broken(data, uses, at), *_unset_or_unused(data, uses)]
    if not (rules.choice_conditions or rules.line_conditions or rules.broken):
        return problems  # nothing can be hidden: playing adds nothing the scene graph did not say
    start = next((s.id for s in data.scenes_in_order() if s.is_start), None)
    if start is None:
        return problems
    seen = explore(data, rules, start)
    problems.extend(_stuck(data, seen, at))
    if not seen.complete:
        problems.append(_cut_off())
        return problems
    problems.extend(_never_true(data, rules, seen, at))
    problems.extend(_blocked(data, seen, linked, at))
    return problems


@dataclass
class Exploration:
    entered: set[str] = field(default_factory=set)
    """Scenes some play-through enters."""
    offered: set[str] = field(default_factory=set)
    """Choices shown at least once."""
    shown_lines: set[str] = field(default_factory=set)
    stuck: dict[str, dict[str, Value]] = field(default_factory=dict)
    """Scene id → a state (after entering it) in which all its choices are hidden."""
    states: int = 0
    complete: bool = True


def explore(data: ProjectData, rules: StateRules, start: str, limit: int = MAX_STATES) -> Exploration:
    """Visit every (scene, state) a player can reach from `start` with the starting values,
    breadth first, each once; stop after `limit` of them."""
    scenes = {scene.id: scene for scene in data.scenes}
    conditioned = _conditioned_lines(data, rules)
    seen = Exploration()
    visited: set[tuple[str, tuple[tuple[str, Value], ...]]] = set()
    queue: deque[tuple[str, Mapping[str, Value]]] = deque([(start, rules.start_state())])
    while queue:
        scene_id, arriving = queue.popleft()
        state = rules.enter(scene_id, arriving)
        key = (scene_id, tuple(sorted(state.items())))
        if key in visited:
            continue
        if len(visited) >= limit:
            seen.complete = False
            break
        visited.add(key)
        seen.entered.add(scene_id)
        seen.shown_lines.update(i for i in conditioned.get(scene_id, ()) if rules.shows_line(i, state))
        choices = data.choices_of(scene_id)
        shown = [choice for choice in choices if rules.offers(choice.id, state)]
        if choices and not shown and not scenes[scene_id].is_ending:
            seen.stuck.setdefault(scene_id, state)
        for choice in shown:
            seen.offered.add(choice.id)
            if choice.target_scene_id in scenes:
                queue.append((choice.target_scene_id, rules.pick(choice.id, state)))
    seen.states = len(visited)
    return seen


def _conditioned_lines(data: ProjectData, rules: StateRules) -> dict[str, list[str]]:
    """Scene id → its lines that have a condition (most lines have none: skip them per state)."""
    found: dict[str, list[str]] = {}
    for line in data.lines:
        if line.id in rules.line_conditions or line.id in rules.broken:
            found.setdefault(line.scene_id, []).append(line.id)
    return found


@dataclass(frozen=True)
class _Rule:
    """One condition or effect as written, and where."""

    key: str
    scene_id: str
    what: str
    source: str
    is_effect: bool


@dataclass(frozen=True)
class _Uses:
    rules: list[_Rule]
    read: set[str]
    set_: set[str]
    broken: list[tuple[_Rule, ExpressionError]]

    @classmethod
    def of(cls, data: ProjectData, state: StateRules) -> _Uses:
        """From the rules `state` has parsed already: each is parsed once per check."""
        written = list(_rules(data))
        read: set[str] = set()
        assigned: set[str] = set()
        broken: list[tuple[_Rule, ExpressionError]] = []
        for rule in written:
            error = state.errors.get((rule.key, rule.is_effect))
            if error is not None:
                broken.append((rule, error))
            elif rule.is_effect:
                for assignment in state.entry.get(rule.key) or state.choice_effects.get(rule.key, []):
                    assigned.add(assignment.name)
                    read.update(names_read(assignment.value))
            else:
                condition = state.line_conditions.get(rule.key) or state.choice_conditions.get(rule.key)
                read.update(names_read(condition) if condition is not None else set())
        return cls(written, read, assigned, broken)


def _rules(data: ProjectData) -> Iterator[_Rule]:
    scenes = {scene.id: scene for scene in data.scenes}
    for scene in data.scenes_in_order():
        if scene.entry_effects:
            yield _Rule(
                scene.id, scene.id, f'The entry effects of scene "{scene.title}"', scene.entry_effects, True
            )
        for line in data.lines_of(scene.id):
            if line.condition:
                what = f'The condition of line {line.position + 1} of scene "{scene.title}"'
                yield _Rule(line.id, scene.id, what, line.condition, False)
        for choice in data.choices_of(scene.id):
            where = f'the choice "{choice.label}" in scene "{scenes[choice.scene_id].title}"'
            if choice.condition:
                yield _Rule(choice.id, scene.id, f"The condition of {where}", choice.condition, False)
            if choice.effects:
                yield _Rule(choice.id, scene.id, f"The effects of {where}", choice.effects, True)


def _broken(data: ProjectData, uses: _Uses, at: Where) -> Iterator[Problem]:
    declared = {variable.name for variable in data.variables}
    for rule, error in uses.broken:
        unknown = sorted(names_in(rule.source) - declared)
        if unknown:
            message = f"{rule.what} uses {_listed(unknown)}, which the story does not declare."
            yield Problem("undeclared_variable", "error", message, *at(rule.scene_id))
        else:
            message = f"{rule.what} no longer checks: {error}."
            yield Problem("invalid_expression", "error", message, *at(rule.scene_id))


def _unset_or_unused(data: ProjectData, uses: _Uses) -> Iterator[Problem]:
    for variable in data.variables:
        name, start = variable.name, _shown(variable.initial)
        if name in uses.read and name not in uses.set_:
            message = f'"{name}" is read by conditions but no effect sets it: it is always {start}.'
            yield Problem("unset_variable", "warning", message)
        elif name not in uses.read and name not in uses.set_:
            yield Problem("unused_variable", "info", f'The variable "{name}" is not used anywhere.')


def _stuck(data: ProjectData, seen: Exploration, at: Where) -> Iterator[Problem]:
    for scene in data.scenes_in_order():
        state = seen.stuck.get(scene.id)
        if state is not None:
            message = (
                f'In scene "{scene.title}" every choice can be hidden at once (with {_state(state)}): '
                "the player gets stuck."
            )
            yield Problem("stuck_choices", "error", message, *at(scene.id))


def _never_true(data: ProjectData, rules: StateRules, seen: Exploration, at: Where) -> Iterator[Problem]:
    for scene in data.scenes_in_order():
        if scene.id not in seen.entered:
            continue
        for choice in data.choices_of(scene.id):
            if choice.id in rules.choice_conditions and choice.id not in seen.offered:
                message = (
                    f'The condition of the choice "{choice.label}" in scene "{scene.title}" '
                    f"({choice.condition}) is never true in any play-through: the choice never shows."
                )
                yield Problem("never_true_condition", "warning", message, *at(scene.id))
        for line in data.lines_of(scene.id):
            if line.id in rules.line_conditions and line.id not in seen.shown_lines:
                message = (
                    f'The condition of line {line.position + 1} of scene "{scene.title}" '
                    f"({line.condition}) is never true in any play-through: the line never shows."
                )
                yield Problem("never_true_condition", "warning", message, *at(scene.id))


def _blocked(data: ProjectData, seen: Exploration, linked: set[str], at: Where) -> Iterator[Problem]:
    for scene in data.scenes_in_order():
        if scene.id in linked and scene.id not in seen.entered:
            message = (
                f'Scene "{scene.title}" is linked from the start, but only through choices whose '
                "conditions never hold: no play-through reaches it."
            )
            yield Problem("blocked_scene", "warning", message, *at(scene.id))


def _cut_off() -> Problem:
    message = (
        f"The story's variables take more than {MAX_STATES:,} combinations along its paths (a "
        "number that keeps growing, perhaps), so the check stopped playing them: conditions that "
        "never hold and scenes they block were not looked for."
    )
    return Problem("state_check_cut_off", "info", message)


def _state(state: Mapping[str, Value]) -> str:
    return ", ".join(f"{name} = {_shown(value)}" for name, value in sorted(state.items())) or "no variables"


def _shown(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return f"{value:g}" if isinstance(value, float) else str(value)


def _listed(names: list[str]) -> str:
    quoted = [f'"{name}"' for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
