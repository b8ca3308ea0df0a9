"""What the story check reports: one problem, with where to look."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Problem:
    code: str
    severity: Severity
    message: str
    scene_id: str | None = None
    chapter_id: str | None = None
