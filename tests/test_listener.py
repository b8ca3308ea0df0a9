"""The server's listening socket: connections get TCP_NODELAY, so no response waits for an ACK.

Without it a response written in two parts (head, then body) waits out the client's 40 ms delayed
ACK: every MCP call took 45 ms instead of 3. asyncio sets TCP_NODELAY on an accepted
connection only when the socket says it is TCP, so this asks asyncio itself, as uvicorn does.
"""

from __future__ import annotations

import asyncio
import socket

from app import listening_socket


async def test_accepted_connections_are_not_held_back_by_nagle():
    listener = listening_socket("127.0.0.1", 0)
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def connected(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = writer.get_extra_info("socket")
        accepted.set_result(connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(connected, sock=listener)
    async with server:
        _, writer = await asyncio.open_connection(*listener.getsockname()[:2])
        assert await asyncio.wait_for(accepted, 5) != 0
        writer.close()
