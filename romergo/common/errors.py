"""The one error type of the domain: a machine code plus a sentence for a person or a model.

Codes are fixed by CONTRACT.md §1 (and §6 for the HTTP-only ones); adapters turn them into MCP
tool errors (`[code] message`) or JSON `{error: {code, message}}` bodies.
"""

from __future__ import annotations

from typing import Literal

ErrorCode = Literal[
    "invalid_argument",
    "too_large",
    "not_found",
    "conflict",
    "permission_denied",
    "no_active_command",
    "ambiguous_command",
    "command_cancelled",
    "command_finished",
    "not_claimed_by_you",
    "not_member",
    "summary_required",
    "confirmation_pending",
    "confirmation_rejected",
    "confirmation_timeout",
    "code_invalid",
    "channel_ended",
    "rate_limited",
    "out_of_scope",
    "internal",
    "unauthorized",
    "forbidden",
]


class RomergoError(Exception):
    """A refused request. `message` is safe to show to the user or the agent verbatim."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


def invalid(message: str) -> RomergoError:
    return RomergoError("invalid_argument", message)


def not_found(kind: str, entity_id: str) -> RomergoError:
    return RomergoError("not_found", f'{kind} "{entity_id}" does not exist in this project.')


def project_not_found(project_id: object) -> RomergoError:
    """A project that is not there, or not the caller's, or deleted: the same words for each."""
    return RomergoError("not_found", f'Project "{project_id}" does not exist.')


def too_large(message: str) -> RomergoError:
    return RomergoError("too_large", message)
