"""The story's small expression language: conditions (`has_key and courage >= 2`) and effects
(`set courage = courage + 1; set has_key = true`).

A real parser (a tokenizer and recursive descent with one function per precedence level), never
`eval`: what an author or an agent types becomes a tree of the node types below, and evaluating it
walks that tree. Precedence, loosest first: `or`, `and`, `not`, comparisons (`== != < <= > >=`, not
chained), `+ -`, unary `-`, then literals (numbers, "text", `true`, `false`), variable names and
parentheses. Every error names the character where it is.

Limits keep crafted input cheap: at most `MAX_SOURCE_CHARS` characters and `MAX_DEPTH` levels of
nesting (checked while parsing, so deep input fails with an error instead of exhausting the stack),
and every number written is within the state's range (`numbers.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from romergo.story.state.numbers import RANGE_WORDS, in_range

MAX_SOURCE_CHARS = 500
MAX_DEPTH = 40
KEYWORDS = frozenset({"and", "or", "not", "true", "false", "set"})
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
Value = bool | int | float | str
Comparison = Literal["==", "!=", "<", "<=", ">", ">="]


class ExpressionError(ValueError):
    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"at character {position + 1}: {message}")
        self.message = message
        self.position = position


# ---- the tree ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Literal_:
    value: Value
    at: int


@dataclass(frozen=True)
class Name:
    name: str
    at: int


@dataclass(frozen=True)
class Not:
    operand: Node
    at: int


@dataclass(frozen=True)
class Negate:
    operand: Node
    at: int


@dataclass(frozen=True)
class Binary:
    op: str
    left: Node
    right: Node
    at: int


Node = Literal_ | Name | Not | Negate | Binary


@dataclass(frozen=True)
class Assignment:
    name: str
    value: Node
    at: int


# ---- the tokens --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    kind: Literal["number", "text", "name", "op", "end"]
    text: str
    at: int


TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<number>\d+(?:\.\d+)?)
      | (?P<text>"(?:[^"\\\n]|\\["\\])*")
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<op>==|!=|<=|>=|[<>+\-()=;])""",
    re.VERBOSE,
)


def tokens(source: str) -> list[Token]:
    if len(source) > MAX_SOURCE_CHARS:
        raise ExpressionError(f"an expression is limited to {MAX_SOURCE_CHARS} characters", MAX_SOURCE_CHARS)
    found: list[Token] = []
    position = 0
    while position < len(source):
        match = TOKEN.match(source, position)
        if match is None:
            if source[position] == '"':
                raise ExpressionError("this text has no closing quote", position)
            raise ExpressionError(f"unexpected character {source[position]!r}", position)
        kind = match.lastgroup
        if kind != "space":
            found.append(Token(kind, match.group(), position))  # type: ignore[arg-type]
        position = match.end()
    found.append(Token("end", "", len(source)))
    return found


# ---- parsing -----------------------------------------------------------------------------------


def parse_condition(source: str) -> Node:
    parser = _Parser(tokens(source))
    if parser.peek().kind == "end":
        raise ExpressionError("the condition is empty", 0)
    node = parser.expression(0)
    parser.expect_end()
    return node


def parse_effects(source: str) -> list[Assignment]:
    """`set NAME = EXPR`, several separated by `;` (or written one per line)."""
    parser = _Parser(tokens(source.replace("\n", ";")))
    assignments: list[Assignment] = []
    while parser.peek().kind != "end":
        if parser.peek().text == ";":
            parser.advance()
            continue
        start = parser.expect_word("set", "an effect starts with 'set', as in: set courage = courage + 1")
        target = parser.advance()
        if target.kind != "name" or target.text in KEYWORDS:
            raise ExpressionError("'set' needs a variable name", target.at)
        parser.expect_op("=", "expected '=' after the variable's name")
        assignments.append(Assignment(target.text, parser.expression(0), start.at))
        if parser.peek().kind != "end" and parser.peek().text != ";":
            raise ExpressionError("expected ';' between effects", parser.peek().at)
    if not assignments:
        raise ExpressionError("no effect given", 0)
    return assignments


class _Parser:
    def __init__(self, found: list[Token]) -> None:
        self.tokens = found
        self.index = 0

    def peek(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.tokens[self.index]
        if token.kind != "end":
            self.index += 1
        return token

    def expect_end(self) -> None:
        token = self.peek()
        if token.kind != "end":
            raise ExpressionError(f"unexpected {token.text!r}", token.at)

    def expect_op(self, op: str, message: str) -> Token:
        token = self.advance()
        if token.kind != "op" or token.text != op:
            raise ExpressionError(message, token.at)
        return token

    def expect_word(self, word: str, message: str) -> Token:
        token = self.advance()
        if token.kind != "name" or token.text != word:
            raise ExpressionError(message, token.at)
        return token

    def expression(self, depth: int) -> Node:
        return self._or(self._deeper(depth))

    def _deeper(self, depth: int) -> int:
        if depth >= MAX_DEPTH:
            raise ExpressionError(f"nested more than {MAX_DEPTH} levels deep", self.peek().at)
        return depth + 1

    def _or(self, depth: int) -> Node:
        node = self._and(depth)
        while self._word("or"):
            at = self.advance().at
            node = Binary("or", node, self._and(depth), at)
        return node

    def _and(self, depth: int) -> Node:
        node = self._not(depth)
        while self._word("and"):
            at = self.advance().at
            node = Binary("and", node, self._not(depth), at)
        return node

    def _not(self, depth: int) -> Node:
        if self._word("not"):
            at = self.advance().at
            return Not(self._not(self._deeper(depth)), at)
        return self._comparison(depth)

    def _comparison(self, depth: int) -> Node:
        node = self._sum(depth)
        token = self.peek()
        if token.kind == "op" and token.text in ("==", "!=", "<", "<=", ">", ">="):
            self.advance()
            node = Binary(token.text, node, self._sum(depth), token.at)
            after = self.peek()
            if after.kind == "op" and after.text in ("==", "!=", "<", "<=", ">", ">="):
                raise ExpressionError("comparisons cannot be chained: use 'and'", after.at)
        elif token.kind == "op" and token.text == "=":
            raise ExpressionError("use '==' to compare ('=' belongs in 'set')", token.at)
        return node

    def _sum(self, depth: int) -> Node:
        node = self._unary(depth)
        while self.peek().kind == "op" and self.peek().text in ("+", "-"):
            token = self.advance()
            node = Binary(token.text, node, self._unary(depth), token.at)
        return node

    def _unary(self, depth: int) -> Node:
        token = self.peek()
        if token.kind == "op" and token.text == "-":
            self.advance()
            return Negate(self._unary(self._deeper(depth)), token.at)
        return self._primary(depth)

    def _primary(self, depth: int) -> Node:
        token = self.advance()
        if token.kind == "number":
            number = float(token.text) if "." in token.text else int(token.text)
            if not in_range(number):
                raise ExpressionError(f"a number must be {RANGE_WORDS}", token.at)
            return Literal_(number, token.at)
        if token.kind == "text":
            return Literal_(re.sub(r'\\(["\\])', r"\1", token.text[1:-1]), token.at)
        if token.kind == "name":
            if token.text in ("true", "false"):
                return Literal_(token.text == "true", token.at)
            if token.text in KEYWORDS:
                raise ExpressionError(f"'{token.text}' cannot stand here", token.at)
            return Name(token.text, token.at)
        if token.kind == "op" and token.text == "(":
            node = self.expression(self._deeper(depth))
            self.expect_op(")", "expected ')' to close the '('")
            return node
        if token.kind == "end":
            raise ExpressionError("the expression ends too early", token.at)
        raise ExpressionError(f"unexpected {token.text!r}", token.at)

    def _word(self, word: str) -> bool:
        token = self.peek()
        return token.kind == "name" and token.text == word
