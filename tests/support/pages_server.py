"""A tiny HTTP server on a loopback port answering fixed pages: an agent's client metadata
document, a redirect, an oversized answer. Started per test, on a port the kernel picks."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

Pages = dict[str, tuple[int, bytes]]
"""Path → (status, body); a 302 points elsewhere, anything unlisted is a 404."""


@asynccontextmanager
async def serving(pages: Pages) -> AsyncIterator[str]:
    """Serve `pages` for the block; yields the base URL. `pages` may change while it runs."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        path = (await reader.readline()).decode("latin-1").split(" ")[1]
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass
        status, body = pages.get(path, (404, b""))
        moved = "Location: http://127.0.0.1:9/elsewhere\r\n" if status == 302 else ""
        head = f"HTTP/1.1 {status} X\r\nContent-Length: {len(body)}\r\n{moved}Connection: close\r\n\r\n"
        writer.write(head.encode() + body)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()
        await server.wait_closed()
