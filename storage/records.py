"""One constructor from a stored row to its record, and back.

A record (a frozen dataclass a ledger hands up) names its fields as the row names its columns, so
`record_of` reads each field from the row's attribute of the same name. What must not be shared
with a row the session may still change (a JSON column's dict or list) is given explicitly, copied.
"""

from __future__ import annotations

from dataclasses import Field, fields
from functools import cache
from typing import Any, ClassVar, Protocol, TypeVar


class DataclassInstance(Protocol):
    """Any dataclass (what `dataclasses.fields` takes)."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]


Record = TypeVar("Record", bound=DataclassInstance)


def record_of(shape: type[Record], row: object, **given: Any) -> Record:
    """The `shape` record of `row`; `given` values take the place of the row's."""
    return shape(**{name: given[name] if name in given else getattr(row, name) for name in _names(shape)})


def columns_of(record: DataclassInstance) -> dict[str, Any]:
    """A record's values by column name: what a row is made or updated from."""
    return {name: getattr(record, name) for name in _names(type(record))}


@cache
def _names(shape: type[DataclassInstance]) -> tuple[str, ...]:
    return tuple(field.name for field in fields(shape))
