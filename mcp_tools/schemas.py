"""Output schemas published in their plainest equivalent form, which agents check faster.

An agent built on the SDK's client checks every structured result against the tool's output
schema with `jsonschema`, in pure Python, on each call. Pydantic writes a nested model as a
definition reached through `$ref`, and an optional field as `anyOf: [{"type": T}, {"type":
"null"}]`; resolving the reference and trying both branches made that check cost an agent
0.23 ms for a delivered command and 0.55 ms for a scene (docs/performance.md).

`plain_schema` writes both as what they mean: a definition in place of its reference (one that
refers back to itself stays a definition), and a nullable field as `"type": [T, "null"]`. The
result accepts and refuses exactly the instances the original does
(tests/mcp_tools/test_schemas.py checks the whole catalogue's schemas against each other).
"""

from __future__ import annotations

from typing import Any

ANNOTATIONS = frozenset({"title", "description", "default", "examples"})
"""Keywords that say nothing about which instances are valid."""

ONLY_FOR = {
    "object": frozenset(
        {"properties", "required", "additionalProperties", "patternProperties", "propertyNames"}
        | {"minProperties", "maxProperties"}
    ),
    "array": frozenset({"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"}),
    "string": frozenset({"minLength", "maxLength", "pattern", "format"}),
    "integer": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
    "boolean": frozenset(),
}
"""Per type, the keywords that constrain only instances of that type: a null passes them all, so
`{"type": [T, "null"], ...}` keeps their meaning."""

DEFS = "#/$defs/"
NULL = {"type": "null"}


def plain_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with its references written in place and its nullable fields as type lists."""
    definitions: dict[str, Any] = schema.get("$defs", {})
    looping = _self_referring(definitions)

    def plain(node: Any) -> Any:
        if isinstance(node, list):
            return [plain(item) for item in node]
        if not isinstance(node, dict):
            return node
        name = _local_reference(node)
        if name is not None and name in definitions and name not in looping:
            annotations = {key: value for key, value in node.items() if key != "$ref"}
            return plain(definitions[name]) | annotations
        return _nullable_as_type_list({key: plain(value) for key, value in node.items() if key != "$defs"})

    result: dict[str, Any] = plain(schema)
    if looping:
        result["$defs"] = {name: plain(definitions[name]) for name in definitions if name in looping}
    return result


def _local_reference(node: dict[str, Any]) -> str | None:
    """The definition a bare reference names (annotations beside it allowed), else None."""
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith(DEFS) or not set(node) - {"$ref"} <= ANNOTATIONS:
        return None
    return ref.removeprefix(DEFS)


def _nullable_as_type_list(node: dict[str, Any]) -> dict[str, Any]:
    """`{"anyOf": [S, {"type": "null"}], ...annotations}` as S with "null" among its types, where
    S has one type and nothing else that a null would fail."""
    branches = node.get("anyOf")
    if not isinstance(branches, list) or len(branches) != 2 or NULL not in branches:
        return node
    if not set(node) - {"anyOf"} <= ANNOTATIONS:
        return node
    other = branches[0] if branches[1] == NULL else branches[1]
    kind = other.get("type") if isinstance(other, dict) else None
    if not isinstance(kind, str) or kind not in ONLY_FOR:
        return node
    if not set(other) - {"type", "enum"} <= ANNOTATIONS | ONLY_FOR[kind]:
        return node
    merged: dict[str, Any] = other | {key: value for key, value in node.items() if key != "anyOf"}
    merged["type"] = [kind, "null"]
    if "enum" in other:
        merged["enum"] = [*other["enum"], None]
    return merged


def _self_referring(definitions: dict[str, Any]) -> set[str]:
    """The definitions that reach themselves through references: writing them in place never ends."""
    refers = {name: _references(body) for name, body in definitions.items()}

    def reaches(start: str) -> bool:
        seen: set[str] = set()
        stack = list(refers.get(start, ()))
        while stack:
            name = stack.pop()
            if name == start:
                return True
            if name not in seen:
                seen.add(name)
                stack.extend(refers.get(name, ()))
        return False

    return {name for name in definitions if reaches(name)}


def _references(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(_references(item) for item in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = {node["$ref"].removeprefix(DEFS)} if isinstance(node.get("$ref"), str) else set()
    return found.union(*(_references(value) for value in node.values()))
