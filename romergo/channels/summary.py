"""What an agent says it did when it replies (CONTRACT.md §2.4): the reply's summary.

The panel shows it next to what Romergo recorded, so it is checked here, once, for every way it
arrives: sizes bounded, and every link a Romergo page, stored as the path Romergo builds for it
(a link that would open another site is refused with `invalid_argument`, never rendered).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from romergo.channels.vocabulary import EntityType
from romergo.common import urls

SummaryStatus = Literal["success", "partial", "failed", "no_changes"]


class ChangedEntity(BaseModel):
    type: EntityType
    id: str = Field(max_length=64)
    title: str = Field(default="", max_length=300)
    url: str = Field(default="", max_length=500, description="A Romergo page path, or empty.")

    @field_validator("url")
    @classmethod
    def _romergo_page(cls, url: str) -> str:
        return url and _page(url)


class Check(BaseModel):
    name: str = Field(max_length=200)
    passed: bool
    detail: str = Field(default="", max_length=2000)


class Link(BaseModel):
    title: str = Field(max_length=300)
    url: str = Field(max_length=500, description="A Romergo page path, such as /projects/ID/scenes/ID.")

    @field_validator("url")
    @classmethod
    def _romergo_page(cls, url: str) -> str:
        return _page(url)


class Summary(BaseModel):
    status: SummaryStatus
    description: str = Field(default="", max_length=4000)
    changed_entities: list[ChangedEntity] = Field(default_factory=list, max_length=200)
    checks: list[Check] = Field(default_factory=list, max_length=100)
    links: list[Link] = Field(default_factory=list, max_length=50)


def _page(url: str) -> str:
    path = urls.page_link(url)
    if path is None:
        raise ValueError(
            "a link must be a Romergo page path such as /projects/ID/scenes/ID (no other site, "
            "no spaces, tabs, newlines or backslashes)"
        )
    return path
