"""The redirect-URI policy of dynamic client registration and of `/authorize` (pure logic).

Registration allows `https://` anywhere and `http://` on a loopback address only (RFC 8252 §7.3),
without fragments, userinfo or dot segments, and without the parameters the authorization response
adds itself. At `/authorize` a redirect URI must match a registered one exactly, except that a
loopback URI may use any port (native clients listen on ephemeral ports) with the same host
spelling, path and query.
"""

from __future__ import annotations

from urllib.parse import SplitResult, parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from romergo.common.errors import RomergoError

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
RESPONSE_PARAMS = frozenset({"code", "state", "iss", "error", "error_description", "error_uri"})
MAX_URI_CHARS = 2000
MAX_URIS = 10


def check_redirect_uris(uris: list[str]) -> list[str]:
    if not uris:
        raise _bad("A client needs at least one redirect URI.")
    if len(uris) > MAX_URIS:
        raise _bad(f"A client may register at most {MAX_URIS} redirect URIs.")
    return [check_redirect_uri(uri) for uri in uris]


def check_redirect_uri(uri: str) -> str:
    """The URI unchanged if registration may accept it; else `invalid_argument` saying why."""
    _check_characters(uri)
    parts = urlsplit(uri)
    _check_scheme_and_host(parts)
    _check_path_and_query(parts)
    return uri


def _check_characters(uri: object) -> None:
    if not isinstance(uri, str) or not uri:
        raise _bad("A redirect URI must be a non-empty string.")
    if len(uri) > MAX_URI_CHARS:
        raise _bad(f"A redirect URI has at most {MAX_URI_CHARS} characters.")
    if any(not 0x21 <= ord(char) <= 0x7E for char in uri) or "\\" in uri:
        raise _bad("A redirect URI may contain only printable ASCII, without spaces or backslashes.")
    if "#" in uri:
        raise _bad("A redirect URI must not contain a fragment (#).")


def _check_scheme_and_host(parts: SplitResult) -> None:
    if parts.scheme not in ("https", "http"):
        raise _bad("A redirect URI must use https://, or http:// on a loopback address.")
    if "@" in parts.netloc:
        raise _bad("A redirect URI must not contain a user name or password.")
    host = parts.hostname
    if not host:
        raise _bad("A redirect URI needs a host.")
    try:
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise _bad("A redirect URI has a malformed port.") from None
    if parts.scheme == "http" and host not in LOOPBACK_HOSTS:
        raise _bad(
            "An http:// redirect URI must point at this machine (127.0.0.1, [::1] or localhost); "
            "use https:// for anything else."
        )


def _check_path_and_query(parts: SplitResult) -> None:
    if any(segment in (".", "..") for segment in unquote(parts.path).split("/")):
        raise _bad("A redirect URI must not contain dot segments (/./ or /../).")
    reserved = sorted({key for key, _ in parse_qsl(parts.query, keep_blank_values=True)} & RESPONSE_PARAMS)
    if reserved:
        raise _bad(f"A redirect URI must not carry the response parameter(s) {', '.join(reserved)}.")


def is_loopback(uri: str) -> bool:
    parts = urlsplit(uri)
    return parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS


def matches(registered: str, requested: str) -> bool:
    """Exact match (an empty path and `/` are the same), or loopback with any port."""
    try:
        check_redirect_uri(requested)
    except RomergoError:
        return False
    want, got = urlsplit(registered), urlsplit(requested)
    if (want.scheme, want.path or "/", want.query) != (got.scheme, got.path or "/", got.query):
        return False
    if want.netloc == got.netloc:
        return True
    if not (is_loopback(registered) and is_loopback(requested)):
        return False
    return want.hostname == got.hostname


def find_match(registered: list[str], requested: str) -> str | None:
    return requested if any(matches(uri, requested) for uri in registered) else None


def with_response(redirect_uri: str, params: dict[str, str | None]) -> str:
    """The client's redirect URI carrying exactly one of each response parameter, all made here."""
    parts = urlsplit(redirect_uri)
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in RESPONSE_PARAMS]
    added = [(k, v) for k, v in params.items() if v is not None]
    return urlunsplit(parts._replace(query=urlencode(kept + added), fragment=""))


def _bad(message: str) -> RomergoError:
    return RomergoError("invalid_argument", message)
