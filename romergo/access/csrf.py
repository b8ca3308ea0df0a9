"""CSRF tokens for the browser's state-changing forms and actions.

A token is an HMAC of a purpose and a binding (the session, or for the sign-in form a timestamp)
under the server secret, so it cannot be forged by another site and is useless elsewhere.
"""

from __future__ import annotations

import hashlib
import hmac
import time

from romergo.common.ids import sha256_hex

LOGIN_FORM_SECONDS = 2 * 3600


def session_token(secret: str, purpose: str, session_token_value: str) -> str:
    return _mac(secret, f"{purpose}|{sha256_hex(session_token_value)}")


def check_session_token(
    secret: str, purpose: str, session_token_value: str | None, presented: object
) -> bool:
    if not session_token_value or not isinstance(presented, str):
        return False
    return hmac.compare_digest(session_token(secret, purpose, session_token_value), presented)


def login_token(secret: str, now: float | None = None) -> str:
    stamp = str(int(now if now is not None else time.time()))
    return f"{stamp}.{_mac(secret, f'login|{stamp}')}"


def check_login_token(secret: str, presented: object, now: float | None = None) -> bool:
    if not isinstance(presented, str) or "." not in presented:
        return False
    stamp, _, mac = presented.partition(".")
    if not stamp.isdigit():
        return False
    age = (now if now is not None else time.time()) - int(stamp)
    return 0 <= age <= LOGIN_FORM_SECONDS and hmac.compare_digest(_mac(secret, f"login|{stamp}"), mac)


def _mac(secret: str, message: str) -> str:
    return hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()
