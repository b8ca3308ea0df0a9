"""Checking and running the story's expressions against its variables.

`check_condition` and `check_effects` are what saving a condition or an effect runs: they parse it
and check every name against the declared variables and every operation against the types (a
condition must be a flag; `+ -` and `< <= > >=` take numbers; `==` and `!=` compare values of one
type; `set` keeps a variable's type). `evaluate` and `apply_effects` walk the checked tree with a
state (variable name → value); they never call into Python beyond these operations. Sums and
differences stop at the ends of the state's range (`numbers.py`), so no play-through fails or
grows without bound however often an effect adds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from romergo.story.state.expressions import (
    KEYWORDS,
    Assignment,
    Binary,
    ExpressionError,
    Literal_,
    Name,
    Negate,
    Node,
    Not,
    Token,
    Value,
    parse_condition,
    parse_effects,
    tokens,
)
from romergo.story.state.numbers import saturated

VariableType = Literal["flag", "number", "text"]
VARIABLE_TYPES: tuple[VariableType, ...] = ("flag", "number", "text")
ORDERING = ("<", "<=", ">", ">=")


def check_condition(source: str, declared: Mapping[str, VariableType]) -> Node:
    node = parse_condition(source)
    found = type_of(node, declared)
    if found != "flag":
        raise ExpressionError(f"a condition must be true or false, not a {found}", node.at)
    return node


def check_effects(source: str, declared: Mapping[str, VariableType]) -> list[Assignment]:
    assignments = parse_effects(source)
    for assignment in assignments:
        wanted = declared.get(assignment.name)
        if wanted is None:
            raise ExpressionError(f"there is no variable called {assignment.name!r}", assignment.at)
        found = type_of(assignment.value, declared)
        if found != wanted:
            raise ExpressionError(
                f"{assignment.name!r} is a {wanted}; this sets it to a {found}", assignment.value.at
            )
    return assignments


def type_of(node: Node, declared: Mapping[str, VariableType]) -> VariableType:
    if isinstance(node, Literal_):
        return value_type(node.value)
    if isinstance(node, Name):
        if node.name not in declared:
            raise ExpressionError(f"there is no variable called {node.name!r}", node.at)
        return declared[node.name]
    if isinstance(node, Not):
        _expect(node.operand, "flag", declared, "'not' needs true or false")
        return "flag"
    if isinstance(node, Negate):
        _expect(node.operand, "number", declared, "'-' needs a number")
        return "number"
    return _binary_type(node, declared)


def evaluate(node: Node, state: Mapping[str, Value]) -> Value:
    if isinstance(node, Literal_):
        return node.value
    if isinstance(node, Name):
        return state[node.name]
    if isinstance(node, Not):
        return not evaluate(node.operand, state)
    if isinstance(node, Negate):
        return -_number(evaluate(node.operand, state))
    if node.op == "and":
        return bool(evaluate(node.left, state)) and bool(evaluate(node.right, state))
    if node.op == "or":
        return bool(evaluate(node.left, state)) or bool(evaluate(node.right, state))
    left, right = evaluate(node.left, state), evaluate(node.right, state)
    return _operate(node.op, left, right)


def holds(node: Node, state: Mapping[str, Value]) -> bool:
    return evaluate(node, state) is True


def apply_effects(assignments: list[Assignment], state: Mapping[str, Value]) -> dict[str, Value]:
    """The state after the effects, one after the other (a later one sees an earlier one's value)."""
    after = dict(state)
    for assignment in assignments:
        after[assignment.name] = evaluate(assignment.value, after)
    return after


def value_type(value: Value) -> VariableType:
    if isinstance(value, bool):
        return "flag"
    if isinstance(value, int | float):
        return "number"
    return "text"


def names_in(source: str) -> set[str]:
    """The variable names an expression or effect mentions (without parsing it whole)."""
    return {token.text for token in _names(tokens(source))}


def names_read(node: Node) -> set[str]:
    """The variable names a parsed expression reads (`names_in` does the same from the text,
    for rules that need not or cannot be parsed: renames, what uses a variable)."""
    if isinstance(node, Name):
        return {node.name}
    if isinstance(node, Not | Negate):
        return names_read(node.operand)
    if isinstance(node, Binary):
        return names_read(node.left) | names_read(node.right)
    return set()


def rename(source: str, old: str, new: str) -> str:
    """`source` with every use of the variable `old` called `new`, all else as written."""
    parts: list[str] = []
    last = 0
    for token in _names(tokens(source)):
        if token.text == old:
            parts.append(source[last : token.at])
            parts.append(new)
            last = token.at + len(old)
    parts.append(source[last:])
    return "".join(parts)


def _names(found: list[Token]) -> list[Token]:
    return [token for token in found if token.kind == "name" and token.text not in KEYWORDS]


def _binary_type(node: Binary, declared: Mapping[str, VariableType]) -> VariableType:
    if node.op in ("and", "or"):
        _expect(node.left, "flag", declared, f"'{node.op}' joins conditions (true or false)")
        _expect(node.right, "flag", declared, f"'{node.op}' joins conditions (true or false)")
        return "flag"
    if node.op in ("+", "-") or node.op in ORDERING:
        _expect(node.left, "number", declared, f"'{node.op}' needs numbers")
        _expect(node.right, "number", declared, f"'{node.op}' needs numbers")
        return "number" if node.op in ("+", "-") else "flag"
    left, right = type_of(node.left, declared), type_of(node.right, declared)
    if left != right:
        raise ExpressionError(f"'{node.op}' compares a {left} with a {right}", node.at)
    return "flag"


def _expect(node: Node, wanted: VariableType, declared: Mapping[str, VariableType], message: str) -> None:
    found = type_of(node, declared)
    if found != wanted:
        raise ExpressionError(f"{message}, not a {found}", node.at)


def _operate(op: str, left: Value, right: Value) -> Value:
    if op == "==":
        return left == right
    if op == "!=":
        return left != right
    a, b = _number(left), _number(right)
    if op == "+":
        return saturated(a + b)
    if op == "-":
        return saturated(a - b)
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    return a >= b


def _number(value: Value) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ExpressionError(f"{value!r} is not a number", 0)
    return saturated(value)
