"""Story state in Yarn Spinner scripts: Yarn has variables, conditions and effects of its
own, so they map both ways.

- A variable ↔ `<<declare $name = value>>` (its description the `//` comment on the line before),
  written at the top of the start node.
- A scene's entry effects ↔ `<<set $name to value>>` lines in the node, outside any option.
- A line's or an option's condition ↔ a trailing `<<if condition>>`.
- A choice's effects ↔ `<<set …>>` lines inside the option, before its jump.

Expressions are Romergo's with a `$` before each variable; on import Yarn's other spellings (`is`,
`eq`, `neq`, `&&`, `||`) become Romergo's. A `<<set>>` of a variable never declared declares it
from the value's type, as Yarn does. Whatever still does not read or check against the variables
is left out of the import, each with a note naming its line: a script that works in Yarn never
fails to import because of one expression.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from romergo.interchange.document import StoryDocument, VariableDoc
from romergo.story.state.evaluate import VariableType, check_condition, check_effects, value_type
from romergo.story.state.expressions import (
    MAX_SOURCE_CHARS,
    Binary,
    ExpressionError,
    Literal_,
    Name,
    Negate,
    Node,
    Not,
    parse_condition,
    parse_effects,
)

# The value runs to the closing `>>` and is trimmed in code: `\s*(?P<value>.+?)\s*>>` made the engine
# try every split of a run of spaces three ways (cubic: 2 s for 2,000 spaces).
DECLARE = re.compile(r"^<<\s*declare\s+\$(?P<name>\w+)\s*(?:=|to)(?P<value>.*)>>$")
SET = re.compile(r"^<<\s*set\s+\$(?P<name>\w+)\s*(?:=|to)(?P<value>.*)>>$")
IF_OPENING = re.compile(r"<<\s*+if\s++")
QUOTED = re.compile(r'("(?:[^"\\]|\\.)*")')
YARN_WORDS = ((re.compile(r"\b(?:is|eq)\b"), "=="), (re.compile(r"\bneq\b"), "!="))
YARN_SIGNS = (("&&", " and "), ("||", " or "))


# ---- export ------------------------------------------------------------------------------------


def declarations(document: StoryDocument) -> list[str]:
    lines: list[str] = []
    for variable in document.variables:
        if variable.description:
            lines.append(f"// {' '.join(variable.description.split())}")
        initial = variable.initial if variable.initial is not None else _default(variable.type)
        lines.append(f"<<declare ${variable.name} = {_literal(initial)}>>")
    return lines


def condition_to_yarn(source: str | None) -> str:
    """` <<if …>>` to put after a line or an option; "" without a condition."""
    if not source:
        return ""
    return f" <<if {unparse(parse_condition(source))}>>"


def effects_to_yarn(source: str | None) -> list[str]:
    if not source:
        return []
    return [f"<<set ${a.name} to {unparse(a.value)}>>" for a in parse_effects(source)]


def unparse(node: Node) -> str:
    """The expression in Yarn's words: every variable with its `$`, nested operations bracketed."""
    if isinstance(node, Literal_):
        return _literal(node.value)
    if isinstance(node, Name):
        return f"${node.name}"
    if isinstance(node, Not):
        return f"not {_inner(node.operand)}"
    if isinstance(node, Negate):
        return f"-{_inner(node.operand)}"
    return f"{_inner(node.left)} {node.op} {_inner(node.right)}"


# ---- import ------------------------------------------------------------------------------------


def declared(stripped: str, comment: str | None) -> VariableDoc | None:
    """The variable a `<<declare …>>` line declares, or None when the line is not one."""
    found = DECLARE.match(stripped)
    source = _declared_value(found.group("value")) if found else ""
    if found is None or not source:
        return None
    try:
        value = parse_condition(from_yarn(source))
    except ExpressionError:
        value = None
    initial = value.value if isinstance(value, Literal_) else None
    kind = value_type(initial) if initial is not None else "text"
    return VariableDoc(found.group("name"), kind, initial, comment or "")


def assignment(stripped: str) -> str | None:
    """A `<<set …>>` line as a Romergo effect (`set name = value`), or None when it is not one."""
    found = SET.match(stripped)
    value = found.group("value").strip() if found else ""
    if found is None or not value:
        return None
    return f"set {found.group('name')} = {from_yarn(value)}"


def split_condition(text: str) -> tuple[str, str | None]:
    """A line or an option's text without its trailing `<<if …>>`, and that condition."""
    ended = text.rstrip()
    if not ended.endswith(">>"):
        return text, None
    for opening in IF_OPENING.finditer(ended, 0, len(ended) - 2):
        condition = ended[opening.end() : -2].strip()
        if condition:
            return text[: opening.start()].rstrip(), from_yarn(condition)
    return text, None


def _declared_value(value: str) -> str:
    """A declaration's value without the `as Type` Yarn allows after it."""
    words = value.rsplit(None, 2)
    if len(words) == 3 and words[1] == "as" and words[2].isidentifier():
        return value.strip().rsplit(None, 2)[0]
    return value.strip()


def from_yarn(source: str) -> str:
    """A Yarn expression in Romergo's words (text in quotes is left as it is)."""
    if len(source) > MAX_SOURCE_CHARS:
        return source  # refused as it is when it is read (`parse_condition`), and noted
    parts = QUOTED.split(source)
    for index in range(0, len(parts), 2):  # the even parts are outside quotes
        part = re.sub(r"\$(?=[A-Za-z_])", "", parts[index])
        for pattern, word in YARN_WORDS:
            part = pattern.sub(word, part)
        for sign, word in YARN_SIGNS:
            part = part.replace(sign, word)
        parts[index] = part
    return "".join(parts)


def settle(document: StoryDocument, notes: list[str]) -> None:
    """Declare what is only ever set (as Yarn does), then leave out, with a note, each condition
    and effect that does not check against the variables."""
    _declare_implicitly(document)
    types: dict[str, VariableType] = {v.name: v.type for v in document.variables}  # type: ignore[misc]
    for scene in document.scenes():
        scene.entry_effects = _effects(scene.entry_effects, types, scene.where, notes)
        for line in scene.lines:
            line.condition = _condition(line.condition, types, line.where, notes)
        for choice in scene.choices:
            choice.condition = _condition(choice.condition, types, choice.where, notes)
            choice.effects = _effects(choice.effects, types, choice.where, notes)


def joined(effects: list[str]) -> str | None:
    return "; ".join(effects) if effects else None


# ---- helpers -----------------------------------------------------------------------------------


def _declare_implicitly(document: StoryDocument) -> None:
    known = {variable.name for variable in document.variables}
    for source in _all_effects(document):
        try:
            assignments = parse_effects(source)
        except ExpressionError:
            continue
        for found in assignments:
            if found.name not in known and isinstance(found.value, Literal_):
                known.add(found.name)
                document.variables.append(VariableDoc(found.name, value_type(found.value.value)))


def _all_effects(document: StoryDocument) -> Iterator[str]:
    for scene in document.scenes():
        if scene.entry_effects:
            yield scene.entry_effects
        yield from (choice.effects for choice in scene.choices if choice.effects)


def _condition(
    source: str | None, types: dict[str, VariableType], where: str, notes: list[str]
) -> str | None:
    if not source:
        return None
    try:
        check_condition(source, types)
    except ExpressionError as error:
        notes.append(f"{where}: the condition <<if {source}>> cannot be read ({error}): left out.")
        return None
    return source


def _effects(source: str | None, types: dict[str, VariableType], where: str, notes: list[str]) -> str | None:
    if not source:
        return None
    try:
        check_effects(source, types)
    except ExpressionError as error:
        notes.append(f"{where}: the effects {source} cannot be read ({error}): left out.")
        return None
    return source


def _inner(node: Node) -> str:
    text = unparse(node)
    return f"({text})" if isinstance(node, Binary | Not) else text


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _default(kind: str) -> object:
    return {"flag": False, "number": 0}.get(kind, "")
