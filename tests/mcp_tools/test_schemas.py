"""Published output schemas: plainer than pydantic writes them, and valid for the same results."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from jsonschema.validators import validator_for
from mcp import Client
from pydantic import BaseModel

from mcp_tools import declare
from mcp_tools.schemas import DEFS, NULL, plain_schema
from mcp_tools.server import build_server
from romergo.services import Services


class Place(BaseModel):
    name: str
    note: str | None


class Node(BaseModel):
    label: str
    children: list[Node] = []


class Story(BaseModel):
    place: Place | None
    mood: Literal["calm", "storm"] | None
    tree: Node
    count: int


def test_a_nested_model_is_written_in_place_and_a_nullable_field_as_a_type_list():
    plain = plain_schema(Story.model_json_schema())
    properties = plain["properties"]
    assert properties["place"]["type"] == ["object", "null"]
    assert properties["place"]["properties"]["note"]["type"] == ["string", "null"]
    assert properties["mood"] == {
        "enum": ["calm", "storm", None],
        "type": ["string", "null"],
        "title": "Mood",
    }
    # A model that contains itself stays a definition: written in place it would never end.
    assert list(plain["$defs"]) == ["Node"]
    assert properties["tree"] == {"$ref": "#/$defs/Node"}


def test_the_plain_schema_accepts_and_refuses_what_the_original_does():
    original = Story.model_json_schema()
    good = {"place": {"name": "Cellar", "note": None}, "mood": "calm", "tree": {"label": "a"}, "count": 1}
    assert _verdicts(original, plain_schema(original), good) > 0


def test_what_a_null_would_fail_stays_a_choice():
    kept = {"anyOf": [{"const": "x", "type": "string"}, {"type": "null"}]}
    assert plain_schema(kept) == kept
    beside = {"anyOf": [{"type": "string"}, {"type": "null"}], "not": {"const": "y"}}
    assert plain_schema(beside) == beside


async def test_every_tool_publishes_a_schema_valid_for_the_same_results_as_pydantic_made(
    services: Services, monkeypatch: pytest.MonkeyPatch
):
    published = await _output_schemas(services)
    monkeypatch.setattr(declare, "plain_schema", lambda schema: schema)
    made = await _output_schemas(services)
    assert published.keys() == made.keys() and made
    refused = 0
    for name, original in made.items():
        plain = published[name]
        assert "$defs" not in plain or plain["$defs"].keys() < original["$defs"].keys(), name
        refused += _verdicts(original, plain, _example(original, original.get("$defs", {}), 0))
    assert refused > 100  # the mutations do reach what the schemas refuse


async def _output_schemas(services: Services) -> dict[str, dict[str, Any]]:
    async with Client(build_server(services)) as client:
        return {
            tool.name: tool.output_schema for tool in (await client.list_tools()).tools if tool.output_schema
        }


def _verdicts(original: dict[str, Any], plain: dict[str, Any], valid: Any) -> int:
    """Checks `valid` and each of its mutations against both schemas: the same verdict every time.
    Returns how many mutations both refused."""
    before, after = validator_for(original)(original), validator_for(plain)(plain)
    assert before.is_valid(valid) and after.is_valid(valid)
    refused = 0
    for instance in _mutations(valid):
        verdict = before.is_valid(instance)
        assert after.is_valid(instance) == verdict, instance
        refused += not verdict
    return refused


def _mutations(instance: Any) -> Iterator[Any]:
    """`instance` with one part replaced by a null, text, a number, an object or a list, or removed."""
    for path in _paths(instance):
        replacements: tuple[Any, ...] = (None, "text", 7, 2.5, True, {}, [])
        for value in replacements:
            yield _with(instance, path, value)
        if path and isinstance(path[-1], str):
            changed = copy.deepcopy(instance)
            del _at(changed, path[:-1])[path[-1]]
            yield changed


def _paths(instance: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    children: list[tuple[Any, Any]] = []
    if isinstance(instance, dict):
        children = list(instance.items())
    elif isinstance(instance, list):
        children = list(enumerate(instance))
    for key, child in children:
        yield from _paths(child, (*path, key))


def _with(instance: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    changed = copy.deepcopy(instance)
    _at(changed, path[:-1])[path[-1]] = value
    return changed


def _at(instance: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        instance = instance[key]
    return instance


def _example(node: Any, definitions: dict[str, Any], depth: int) -> Any:
    """A valid instance of `node`, every optional property present and not null."""
    if "$ref" in node:
        return _example(definitions[node["$ref"].removeprefix(DEFS)], definitions, depth)
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return next(value for value in node["enum"] if value is not None)
    for choice in ("anyOf", "oneOf"):
        if choice in node:
            branch = next(b for b in node[choice] if b != NULL)
            return _example(branch, definitions, depth)
    kind = node.get("type")
    kind = next(k for k in kind if k != "null") if isinstance(kind, list) else kind
    if kind == "object":
        return {
            name: _example(sub, definitions, depth + 1) for name, sub in node.get("properties", {}).items()
        }
    if kind == "array":
        return [] if depth > 4 or "items" not in node else [_example(node["items"], definitions, depth + 1)]
    return {"string": "text", "integer": 3, "number": 1.5, "boolean": True}.get(str(kind))
