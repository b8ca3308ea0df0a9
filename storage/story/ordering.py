"""Rows of one kind under one parent, in their order: what the services that still change rows
themselves read before placing one among its siblings (`romergo.story.base.UnitOfWork.ordered`)."""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar, cast

from sqlalchemy import bindparam
from sqlmodel import col, select

from storage.story.transaction import Transaction
from storage.tables import Choice

Row = TypeVar("Row")


async def children_in_order(session: Transaction, model: type[Row], parent: str, parent_id: str) -> list[Row]:
    """The rows of `model` whose `parent` column is `parent_id`, by position."""
    statement = _children_in_order(cast(Any, model), parent)
    rows: list[Row] = list((await session.exec(statement, params={"parent_id": parent_id})).all())
    return rows


async def choice_rows_of(session: Transaction, scene_id: str) -> list[Choice]:
    return await children_in_order(session, Choice, "scene_id", scene_id)


# Built once per model: these run in nearly every story call, and building a statement (coercing
# its parts, computing its cache key) cost about as much as running it.
@cache
def _children_in_order(model: Any, parent: str) -> Any:
    return select(model).where(getattr(model, parent) == bindparam("parent_id")).order_by(col(model.position))
