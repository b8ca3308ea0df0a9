"""What the fuzz tests draw from: a fresh seed each run, values of every JSON type at their worst
edges, hostile regular expressions, and arguments shaped by a tool's input schema (the budget
each call keeps is in budget.py, hostile files in hostile_files.py).

The seed is new every run (hypothesis is never derandomized here) and printed with every example
hypothesis reports, so a failure replays with `ROMERGO_FUZZ_SEED=<seed>`. The strategies lean
towards inputs that have cost servers dearly: integers far past 64 bits, very long text, deep
nesting, and the real ids of the story, so that calls get past the first check and deep into the
services.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, note, seed, settings
from hypothesis import strategies as st

F = TypeVar("F", bound=Callable[..., Any])

FUZZ_SEED = int(os.environ.get("ROMERGO_FUZZ_SEED") or secrets.randbits(48))
"""This run's seed: set ROMERGO_FUZZ_SEED to replay a run."""
ERROR_TEXT = re.compile(r"^\[([a-z_]+)\] \S")

HUGE_INTEGERS = [2**63, 2**63 - 1, -(2**63) - 1, 2**64, 10**30, 10**400, -(10**400), 2**1000]
ODD_TEXT = ["", " ", "\x00", "\u202e", "/\t/evil.example", "</untrusted-data-x>", "𝔘𝔫𝔦"]
DEEP_TEXT = "[" * 100_000 + "]" * 100_000
"""JSON nested past any parser's depth, as text: a client may send a list as JSON text."""
LONG_TEXT = ["a" * 5000, "(a+)+" * 200, "é" * 70_000, "x" * 600_000, DEEP_TEXT]


HOSTILE_PATTERNS = [
    "(?:(?:a{100}){100}){150}",  # costs seconds and hundreds of MB to compile (bigger: gigabytes)
    "(a+)+$",
    "(\\w+\\s?)+$",
    "(a|aa)+$",
    "(.*a){20}",
]
"""Regular expressions that cost a naive engine dearly, to compile or to match a long line."""
LONG_LINE = "a" * 1999 + "!"
"""A line as long as a line may be, that the patterns above fail to match only after long work."""


IDENTIFIERS = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True)
"""Names of variables and the like must look like identifiers to get past the first check."""


def patterns() -> st.SearchStrategy[str]:
    """Regular expressions: the hostile ones above and random nestings of quantified groups."""
    atoms = st.sampled_from(["a", "\\w", ".", "[a-z]", "a|aa", "\\s?", "\\d"])
    quantified = st.tuples(atoms, st.sampled_from(["+", "*", "?", "{1,50}", "{20}", "{2,}"])).map(
        lambda part: f"(?:{part[0]}){part[1]}"
    )
    nested = st.recursive(
        quantified,
        lambda inner: st.tuples(
            st.lists(inner, min_size=1, max_size=3), st.sampled_from(["+", "*", "{10}"])
        ).map(lambda part: f"(?:{''.join(part[0])}){part[1]}"),
        max_leaves=4,
    )
    return (
        st.sampled_from(HOSTILE_PATTERNS) | nested.map(lambda pattern: pattern + "$") | st.text(max_size=30)
    )


def fuzzing(examples: int) -> Callable[[F], F]:
    """Hypothesis settings for a fuzz test: this run's seed, no example database, no deadline of
    its own (the budget is asserted per call instead)."""

    def decorate(test: F) -> F:
        configured = settings(
            max_examples=examples,
            deadline=None,
            derandomize=False,
            suppress_health_check=[
                HealthCheck.function_scoped_fixture,
                HealthCheck.too_slow,
                HealthCheck.data_too_large,
            ],
            database=None,
            # The first failure is reported as drawn: shrinking it would repeat calls that may
            # each take the whole budget, and the suite's time is bounded.
            phases=[Phase.explicit, Phase.generate],
            report_multiple_bugs=False,
        )(test)
        return seed(FUZZ_SEED)(configured)

    return decorate


def replay_note() -> None:
    """Say, in hypothesis's report of a failing example, how to replay this run."""
    note(f"fuzz seed {FUZZ_SEED}: replay with ROMERGO_FUZZ_SEED={FUZZ_SEED}")


def nested(depth: int, leaf: Any = 0) -> Any:
    """A list `depth` levels deep (the client's encoder stops at 255; deeper goes as raw text)."""
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def scalars() -> st.SearchStrategy[Any]:
    return (
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**80), max_value=2**80)
        | st.sampled_from(HUGE_INTEGERS)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=40)
        | st.sampled_from(ODD_TEXT + LONG_TEXT)
    )


def json_values() -> st.SearchStrategy[Any]:
    """Any JSON value: scalars at their edges, small containers of them, and deep nesting."""
    containers = st.recursive(
        scalars(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=8,
    )
    return containers | st.integers(min_value=30, max_value=200).map(nested)


@dataclass
class IdPools:
    """Real ids by what they name, so a parameter called `scene_id` mostly gets a scene's id."""

    by_kind: dict[str, list[str]] = field(default_factory=dict)

    def all(self) -> list[str]:
        return [entity_id for ids in self.by_kind.values() for entity_id in ids]

    def for_parameter(self, name: str) -> list[str]:
        kind = PARAMETER_KINDS.get(name)
        chosen = self.by_kind.get(kind, []) if kind else []
        return chosen or (self.all() if name.endswith(("_id", "_ids")) else [])


PARAMETER_KINDS = {
    "project_id": "project",
    "chapter_id": "chapter",
    "chapter_ids": "chapter",
    "scene_id": "scene",
    "target_scene_id": "scene",
    "start_scene": "scene",
    "line_id": "line",
    "character_id": "character",
    "speaker": "character",
    "asset_id": "asset",
    "variable_id": "variable",
    "command_id": "command",
    "channel_id": "channel",
    "code": "code",
}


def tool_arguments(schema: Mapping[str, Any], ids: IdPools) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments for a tool: mostly of the types its schema asks for (so calls reach the services),
    sometimes junk of any type, sometimes an unknown key."""
    return _object(schema, schema.get("$defs", {}), ids) | st.fixed_dictionaries(
        {}, optional={name: json_values() for name in schema.get("properties", {})}
    ).flatmap(
        lambda known: st.dictionaries(st.text(max_size=12), json_values(), max_size=2).map(
            lambda extra: {**extra, **known}
        )
    )


def numeric_parameters(schema: Mapping[str, Any]) -> list[str]:
    """The top-level parameters that take a number (an integer or any number among other types)."""
    found = []
    for name, part in schema.get("properties", {}).items():
        options = part.get("anyOf", [part])
        if any(option.get("type") in ("integer", "number") for option in options):
            found.append(name)
    return found


def well_formed(schema: Mapping[str, Any], ids: IdPools) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments of the right types only, with real ids: a call that gets past every first check."""
    defs = schema.get("$defs", {})
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))

    def plain(name: str, part: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        pool = ids.for_parameter(name)
        if pool and "array" not in str(part.get("type")):
            return st.sampled_from(pool)
        if name == "name":
            return IDENTIFIERS
        options = [option for option in part.get("anyOf", [part]) if option.get("type") != "null"]
        return st.one_of([_typed(option, defs, ids, name) for option in options] or [st.none()])

    return st.fixed_dictionaries(
        {name: plain(name, part) for name, part in properties.items() if name in required},
        optional={name: plain(name, part) for name, part in properties.items() if name not in required},
    )


def _value(
    schema: Mapping[str, Any], defs: Mapping[str, Any], ids: IdPools, name: str
) -> st.SearchStrategy[Any]:
    pool = ids.for_parameter(name)
    typed = _typed(schema, defs, ids, name)
    if pool:
        real = st.sampled_from(pool)
        typed = real | real | typed if "array" not in str(schema.get("type")) else typed
    return typed | typed | typed | json_values()


def _typed(
    schema: Mapping[str, Any], defs: Mapping[str, Any], ids: IdPools, name: str
) -> st.SearchStrategy[Any]:
    if "$ref" in schema:
        return _typed(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, ids, name)
    if "anyOf" in schema:
        return st.one_of([_value(option, defs, ids, name) for option in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        return _object(schema, defs, ids)
    if kind == "array":
        return st.lists(_value(schema.get("items", {}), defs, ids, name), max_size=4)
    return _SIMPLE.get(kind, json_values)()


def _object(
    schema: Mapping[str, Any], defs: Mapping[str, Any], ids: IdPools
) -> st.SearchStrategy[dict[str, Any]]:
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    return st.fixed_dictionaries(
        {name: _value(part, defs, ids, name) for name, part in properties.items() if name in required},
        optional={
            name: _value(part, defs, ids, name) for name, part in properties.items() if name not in required
        },
    )


def _text() -> st.SearchStrategy[str]:
    return st.text(max_size=60) | IDENTIFIERS | st.sampled_from(ODD_TEXT + LONG_TEXT)


def _integers() -> st.SearchStrategy[int]:
    return st.integers(min_value=-5, max_value=60) | st.sampled_from(HUGE_INTEGERS)


def _numbers() -> st.SearchStrategy[Any]:
    return st.floats(allow_nan=False, allow_infinity=False) | _integers()


_SIMPLE: dict[Any, Callable[[], st.SearchStrategy[Any]]] = {
    "string": _text,
    "integer": _integers,
    "number": _numbers,
    "boolean": st.booleans,
    "null": st.none,
}
