"""A project's variables: add, change, rename (every use follows), delete (refused while
used); and the check every condition and effect goes through when it is saved.

A variable's name is what conditions and effects write (`has_key`): letters, digits and
underscores, not starting with a digit, not a keyword, unique in the project ignoring case. Its
type (flag, number, text) is fixed once made; its initial value is what a play-through starts with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Final

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.errors import RomergoError, invalid
from romergo.common.ids import new_id
from romergo.story import snapshots
from romergo.story.base import Mutation, StoryStore, UnitOfWork
from romergo.story.based_on import based_on
from romergo.story.ledger import VariableRecord
from romergo.story.state.evaluate import (
    VARIABLE_TYPES,
    VariableType,
    check_condition,
    check_effects,
    names_in,
    rename,
)
from romergo.story.state.expressions import KEYWORDS, ExpressionError, Value
from romergo.story.state.numbers import RANGE_WORDS, in_range

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")
MAX_DESCRIPTION_CHARS = 500
MAX_TEXT_VALUE_CHARS = 200
DEFAULTS: dict[str, Value] = {"flag": False, "number": 0, "text": ""}
UNSET: Final = object()


@dataclass(frozen=True)
class VariableService:
    store: StoryStore
    limits: Limits

    async def list_variables(self, actor: Actor, project_id: str) -> list[VariableRecord]:
        async with self.store.read(actor) as uow:
            await uow.project_by_id(project_id)
            return await project_variables(uow, project_id)

    async def add_variable(
        self,
        actor: Actor,
        project_id: str,
        name: str,
        type: str,
        initial: object = None,
        description: str = "",
    ) -> VariableRecord:
        kind = _type(type)
        value = DEFAULTS[kind] if initial is None else _value(kind, initial)
        clean = _description(description)
        async with self.store.write(actor) as tx:
            await tx.project_by_id(project_id)
            chosen = _name(name, [v.name for v in await project_variables(tx, project_id)])
            now = utcnow()
            row = VariableRecord(
                id=new_id("var"),
                project_id=project_id,
                name=chosen,
                type=kind,
                initial=value,
                description=clean,
                created_at=now,
                updated_at=now,
            )
            await tx.story.add_variable(row)
            tx.record("variable", row.id, "created", None, snapshots.variable(row))
        return row

    async def update_variable(
        self,
        actor: Actor,
        variable_id: str,
        name: str | None = None,
        initial: Any = UNSET,
        description: str | None = None,
        *,
        expected_revision: int | None = None,
    ) -> VariableRecord:
        """A new name is written into every condition and effect that uses the variable, in the
        same change (one undo takes both back)."""
        async with self.store.write(actor) as tx:
            row = await tx.variable(variable_id)
            before = snapshots.variable(row)
            given: dict[str, Any] = {}
            if initial is not UNSET:
                given["initial"] = _value(_type(row.type), initial)
            if description is not None:
                given["description"] = _description(description)
            if name is not None:
                others = [v.name for v in await project_variables(tx, row.project_id) if v.id != row.id]
                given["name"] = name if name == row.name else _name(name, others)
            mine = await based_on(tx, "variable", row.id, before, given, expected_revision)
            if "name" in mine and mine["name"] != row.name:
                await _rename_uses(tx, row.project_id, row.name, mine["name"])
            changed = replace(row, **mine, updated_at=utcnow())
            if tx.changed("variable", row.id, before, snapshots.variable(changed)):
                await tx.story.save_variable(changed)
                row = changed
        return row

    async def delete_variable(self, actor: Actor, variable_id: str) -> None:
        async with self.store.write(actor) as tx:
            row = await tx.variable(variable_id)
            used = await _uses(tx, row.project_id, row.name)
            if used:
                shown = "; ".join(used[:5]) + (f" and {len(used) - 5} more" if len(used) > 5 else "")
                raise RomergoError("conflict", f'"{row.name}" is still used: {shown}. Change those first.')
            await tx.story.remove_variable(row.id)
            tx.record("variable", row.id, "deleted", snapshots.variable(row), None)


def check_variable(name: object, type: object, initial: object, others: list[str]) -> VariableType:
    """A variable as an import declares it: the same rules as `add_variable` (returns its type)."""
    kind = _type(type)
    if initial is not None:
        _value(kind, initial)
    _name(name, others)
    return kind


async def declared(uow: UnitOfWork, project_id: str) -> dict[str, VariableType]:
    """The project's variables by name, with their types: what conditions and effects are checked against."""
    return {row.name: _type(row.type) for row in await project_variables(uow, project_id)}


def checked_condition(source: str | None, types: dict[str, VariableType], what: str) -> str | None:
    """A condition as saved: None or blank clears it; otherwise it must parse and type-check."""
    if source is None or not str(source).strip():
        return None
    text = _source(source, what)
    try:
        check_condition(text, types)
    except ExpressionError as error:
        raise invalid(f"{what} {error}: {_pointed(text, error.position)}") from None
    return text


def checked_effects(source: str | None, types: dict[str, VariableType], what: str) -> str | None:
    if source is None or not str(source).strip():
        return None
    text = _source(source, what)
    try:
        check_effects(text, types)
    except ExpressionError as error:
        raise invalid(f"{what} {error}: {_pointed(text, error.position)}") from None
    return text


async def project_variables(uow: UnitOfWork, project_id: str) -> list[VariableRecord]:
    """The project's variables, by name."""
    return sorted(await uow.story.variables(project_id), key=lambda v: v.name.casefold())


async def _rename_uses(tx: Mutation, project_id: str, old: str, new: str) -> None:
    """Written before the variable itself, so its revision comes last, as it always did."""
    mentions = await tx.story.variable_mentions(project_id, old)
    now = utcnow()
    for scene in mentions.scenes:
        choices = await tx.story.choices_of(scene.id)
        renamed = replace(scene, entry_effects=rename(scene.entry_effects or "", old, new), updated_at=now)
        if tx.changed("scene", scene.id, snapshots.scene(scene, choices), snapshots.scene(renamed, choices)):
            await tx.story.save_scene(renamed)
    for line in mentions.lines:
        written = replace(line, condition=rename(line.condition or "", old, new), updated_at=now)
        if tx.changed("dialogue_line", line.id, snapshots.line(line), snapshots.line(written)):
            await tx.story.save_line(written)
    for scene_id in dict.fromkeys(choice.scene_id for choice in mentions.choices):
        holder = await tx.story.scene(scene_id)
        assert holder is not None  # its choices were just read
        choices = await tx.story.choices_of(scene_id)
        renamed_choices = [
            replace(
                choice,
                condition=rename(choice.condition, old, new) if choice.condition else None,
                effects=rename(choice.effects, old, new) if choice.effects else None,
            )
            for choice in choices
        ]
        before, after = snapshots.scene(holder, choices), snapshots.scene(holder, renamed_choices)
        if tx.changed("scene", holder.id, before, after):
            for choice in renamed_choices:
                await tx.story.save_choice(choice)
            await tx.story.save_scene(replace(holder, updated_at=now))


async def _uses(uow: UnitOfWork, project_id: str, name: str) -> list[str]:
    mentions = await uow.story.variable_mentions(project_id, name)
    found: list[str] = []
    for scene in mentions.scenes:
        if name in names_in(scene.entry_effects or ""):
            found.append(f'entering scene "{scene.title}"')
    for line in mentions.lines:
        if name in names_in(line.condition or ""):
            found.append(f"line {line.position + 1} of a scene")
    for choice in mentions.choices:
        if name in names_in(choice.condition or "") | names_in(choice.effects or ""):
            found.append(f'the choice "{choice.label}"')
    return found


def _name(name: object, others: list[str]) -> str:
    if not isinstance(name, str) or not NAME.match(name.strip()):
        raise invalid(
            "A variable's name is letters, digits and underscores (at most 40), not starting with a digit, "
            "as in has_key or courage."
        )
    clean = name.strip()
    if clean in KEYWORDS:
        raise invalid(f'"{clean}" is a word of the expression language; choose another name.')
    for other in others:
        if other.casefold() == clean.casefold():
            raise RomergoError("conflict", f'The story has a variable called "{other}" already.')
    return clean


def _type(value: object) -> VariableType:
    for known in VARIABLE_TYPES:
        if value == known:
            return known
    raise invalid(f"A variable is a flag, a number or a text, not {value!r}.")


def _value(kind: VariableType, value: object) -> Value:
    if kind == "flag" and isinstance(value, bool):
        return value
    if kind == "number" and isinstance(value, int | float) and not isinstance(value, bool):
        if not in_range(value):
            raise invalid(f"A number must be finite and {RANGE_WORDS}.")
        return value
    if kind == "text" and isinstance(value, str):
        if len(value) > MAX_TEXT_VALUE_CHARS:
            raise invalid(f"A text value is limited to {MAX_TEXT_VALUE_CHARS} characters.")
        return value
    raise invalid(f"The initial value of a {kind} must be {_example(kind)}.")


def _example(kind: VariableType) -> str:
    return {"flag": "true or false", "number": "a number", "text": "a text"}[kind]


def _description(value: object) -> str:
    if not isinstance(value, str):
        raise invalid("A description must be text.")
    if len(value) > MAX_DESCRIPTION_CHARS:
        raise invalid(f"A description is limited to {MAX_DESCRIPTION_CHARS} characters.")
    return value.strip()


def _source(source: object, what: str) -> str:
    if not isinstance(source, str):
        raise invalid(f"{what} must be text.")
    return source.strip()


def _pointed(text: str, position: int) -> str:
    """The source with a marker where the error is, for the message."""
    return f"{text[:position]}⟨here⟩{text[position:]}"
