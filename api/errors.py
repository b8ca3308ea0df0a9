"""Every answer under /api/v1 that is not a success is `{error: {code, message}}` (CONTRACT.md §6)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from romergo.common.errors import RomergoError

STATUS = {
    "invalid_argument": 400,
    "code_invalid": 400,
    "summary_required": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "permission_denied": 403,
    "not_found": 404,
    "too_large": 413,
    "rate_limited": 429,
    "internal": 500,
}
HTTP_CODES = {
    400: "invalid_argument",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    413: "too_large",
}


def error_response(code: str, message: str, status: int | None = None) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status or STATUS.get(code, 409)
    )


def install(app: FastAPI) -> None:
    @app.exception_handler(RomergoError)
    async def domain_error(_: Request, error: RomergoError) -> JSONResponse:
        return error_response(error.code, error.message)

    @app.exception_handler(RequestValidationError)
    async def invalid_body(_: Request, error: RequestValidationError) -> JSONResponse:
        problems = []
        for item in error.errors()[:5]:
            where = ".".join(
                str(part) for part in item.get("loc", ()) if part not in ("body", "query", "path")
            )
            problems.append(f"{where or 'body'}: {item.get('msg', 'invalid')}")
        return error_response("invalid_argument", "; ".join(problems) or "The request is not valid.", 400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, error: StarletteHTTPException) -> JSONResponse:
        code = HTTP_CODES.get(
            error.status_code, "invalid_argument" if error.status_code < 500 else "internal"
        )
        message = error.detail if isinstance(error.detail, str) else "Request refused."
        if error.status_code == 404:
            message = "No such resource in the Romergo API."
        if error.status_code == 405:
            code, message = "invalid_argument", "This method is not allowed here."
        return error_response(code, message, error.status_code)

    @app.exception_handler(Exception)
    async def unexpected(_: Request, __: Exception) -> JSONResponse:
        return error_response("internal", "Something went wrong inside Romergo; the error was logged.", 500)
